#!/usr/bin/env python3
# host_overhead.py: the host-side costs of the per-iteration Python work the
# NVIDIA DeepLearningExamples PyTorch Transformer (fairseq DDPTrainer,
# PyTorch/Translation/Transformer/fairseq/ddp_trainer.py, train_step) makes
# its GPUs wait for on more than one GPU, measured on the machine it runs on
# (a CUDA GPU with PyTorch). Prints one JSON object (medians of R runs):
#   divHostPerOp        host time per in-place divide issued behind a GPU backlog
#   divGPU              GPU time of the 185 divides (CUDA events)
#   divWallAfterSync    the 185 divides issued right after a synchronisation,
#                       to the last kernel's end (fairseq's p.grad /= grad_denom)
#   itemRead            one blocking small read (t[i].item()) with the GPU idle
#   allGatherList8Host  all_gather_list's host work for 8 ranks, no collective
# The gradients are transformer_wmt_en_de_big_t2t's 185 tensors (shared
# embeddings, 6+6 layers, d 1024, ff 4096), FP32. devices/host.go holds the
# figures measured with it. Run: python3 scripts/host_overhead.py
import json,pickle,time,torch
d,ff,V=1024,4096,33708
E=[(3*d,d),(3*d,),(d,d),(d,),(d,),(d,),(ff,d),(ff,),(d,ff),(d,),(d,),(d,)]
S=[(V,d)]+E*6+(E+[(3*d,d),(3*d,),(d,d),(d,),(d,),(d,)])*6+[(d,)]*4
G=[torch.randn(*s,device='cuda') for s in S]
sm=torch.zeros(16384,dtype=torch.uint8,device='cuda')
B=torch.randn(8192,8192,device='cuda')
sy=torch.cuda.synchronize;pc=time.perf_counter;R=20
def div():
  for g in G:g/=1.0001
for _ in range(3):div();sm[0].item();B@B
sy();o={'torch':torch.__version__,'n':len(G),'bytes':sum(g.numel()*4 for g in G)}
med=lambda x:sorted(x)[len(x)//2]
h=[];q=[];w=[];r=[];a=[]
for _ in range(R):
  for _ in range(8):B@B
  t=pc();div();h.append((pc()-t)/len(G));sy()
for _ in range(R):
  for _ in range(8):B@B
  s=torch.cuda.Event(enable_timing=True);e=torch.cuda.Event(enable_timing=True);s.record();div();e.record();sy();q.append(s.elapsed_time(e)/1e3)
for _ in range(R):
  sy();t=pc();div();sy();w.append(pc()-t)
for _ in range(R):
  sy();t=pc()
  for i in range(24):sm[i%2].item()
  r.append((pc()-t)/24)
P=([10240],[{'ntokens':10240,'nsentences':320,'loss':1.0}],[0],[0])
for _ in range(R):
  sy();t=pc();en=pickle.dumps(P);n=len(en);sm[0]=n//255;sm[1]=n%255;sm[2:n+2]=torch.ByteTensor(list(en));res=[]
  for _ in range(8):
    z=255*sm[0].item()+sm[1].item();res.append(pickle.loads(bytes(sm[2:z+2].tolist())))
  a.append(pc()-t)
o.update(divHostPerOp=med(h),divGPU=med(q),divWallAfterSync=med(w),itemRead=med(r),allGatherList8Host=med(a))
print(json.dumps(o))
