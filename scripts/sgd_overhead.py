#!/usr/bin/env python3
# sgd_overhead.py: the host-side cost of torch.optim.SGD's per-tensor loop
# (foreach=False, as PyTorch 1.9 in the pytorch-21.03 NGC container ran it)
# and of zero_grad(set_to_none=False) over ResNet-50 v1.5's 161 parameter
# tensors, as NVIDIA DeepLearningExamples' ConvNets trainer issues them
# (image_classification/optimizers.py: momentum 0.875, no weight decay on
# batch norm; training.py: GradScaler.step reads found_inf with .item()
# right before optimizer.step under AMP, so the GPU is idle when the loop
# starts). Prints one JSON object (medians of R runs):
#   stepZeroWallAfterSync      from a synchronisation to the last kernel's end
#   stepZeroGPU                the kernels' GPU time (CUDA events, behind a backlog)
#   stepZeroHostBehindBacklog  the host's issue time when it never waits
# devices/host.go holds the figures measured with it.
# Run: python3 scripts/sgd_overhead.py
import json,time,torch
# ResNet-50 v1.5's 161 parameter tensors (torchvision layout): conv, bn (w,b), fc
def shapes():
  S=[('conv1',(64,3,7,7)),('bn1',(64,)),('bn1b',(64,))]
  cin=64
  for w,n in [(64,3),(128,4),(256,6),(512,3)]:
    for i in range(n):
      for j,(co,ci,k) in enumerate([(w,cin if i==0 else w*4,1),(w,w,3),(w*4,w,1)]):
        S+=[('conv',(co,ci,k,k)),('bn',(co,)),('bnb',(co,))]
      if i==0:S+=[('down',(w*4,cin,1,1)),('bn',(w*4,)),('bnb',(w*4,))]
      cin=w*4
  S+=[('fc',(1000,2048)),('fcb',(1000,))]
  return S
S=shapes()
P=[torch.randn(*s,device='cuda',requires_grad=True) for _,s in S]
for p in P:p.grad=torch.randn_like(p)
bn=[p for (n,_),p in zip(S,P) if n.startswith('bn')];rest=[p for (n,_),p in zip(S,P) if not n.startswith('bn')]
o={'params':len(P),'bn':len(bn),'rest':len(rest),'torch':torch.__version__}
opt=torch.optim.SGD([{'params':bn,'weight_decay':0},{'params':rest,'weight_decay':3.0517578125e-05}],lr=0.256,momentum=0.875,foreach=False)
B=torch.randn(8192,8192,device='cuda');sy=torch.cuda.synchronize;pc=time.perf_counter
def it():
  opt.step();opt.zero_grad(set_to_none=False)
for _ in range(5):it()
sy();R=30;w=[];g=[];h=[]
med=lambda x:sorted(x)[len(x)//2]
for _ in range(R):
  sy();t=pc();it();sy();w.append(pc()-t)
for _ in range(R):
  for _ in range(10):B@B
  s=torch.cuda.Event(enable_timing=True);e=torch.cuda.Event(enable_timing=True);s.record();t=pc();it();h.append(pc()-t);e.record();sy();g.append(s.elapsed_time(e)/1e3)
o.update(stepZeroWallAfterSync=med(w),stepZeroGPU=med(g),stepZeroHostBehindBacklog=med(h))
print(json.dumps(o))
