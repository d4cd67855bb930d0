// Package native reads and writes placesim's own workload format: a JSON
// file that holds a workloads.Graph losslessly (Write then Parse gives an
// equal graph) and that is strict to read (an unknown field, a wrong type,
// a negative size or an edge to a missing op is an error naming the file,
// the field and the valid range).
//
// # Schema (version 1)
//
// Units: times in seconds, sizes in bytes, work in FLOPs (one multiply-add
// counts as 2 FLOPs). Field names are case-sensitive. A field not listed
// here is an error; a field given twice in one object is an error.
//
//	{
//	  "format": "placesim-workload",  required; identifies the format
//	  "version": 1,                   required; the schema version (only 1)
//	  "name": "zoo:mlp",              workload name (string, default "")
//	  "batch": 128,                   required; samples per step, >= 1
//	  "training": true,               a training step (bool, default false)
//	  "hint": {                       optional: the machine the workload describes
//	    "accelerators": 3,            number of accelerators, >= 0
//	    "cpus": 1,                    number of CPUs, >= 0
//	    "acceleratorMemory": 17179869184  bytes per accelerator, >= 0
//	  },
//	  "ops": [                        required; at least one op, in ID order
//	    {
//	      "name": "fc1/matmul",       required; unique, non-empty
//	      "type": "matmul",           op class (string, default "")
//	      "layer": "fc1",             model layer (string, default "")
//	      "role": "forward",          forward | backward | update (default forward)
//	      "flops": 2.1e9,             floating-point work, finite, >= 0 (default 0)
//	      "bytesAccessed": 1048576,   device-memory traffic (integer bytes, >= 0)
//	      "fixedBytes": 0,            of it, what does not shrink with the batch (0..bytesAccessed)
//	      "outputBytes": 524288,      size of the op's outputs (integer bytes, >= 0)
//	      "paramBytes": 16777216,     resident parameters (integer bytes, >= 0)
//	      "tempBytes": 0,             workspace while running (integer bytes, >= 0)
//	      "gradBytes": 0,             gradient all-reduced in data parallelism (update ops; integer bytes, >= 0)
//	      "measured": {               measured run times in seconds, finite, >= 0,
//	        "V100-16GB": 0.0012,      keyed by device kind name,
//	        "accelerator": 0.0011,    device class ("accelerator", "cpu")
//	        "*": 0.0015               or any device ("*")
//	      },
//	      "colocation": "fc1",        ops with the same group share a device (default "")
//	      "cpuOnly": false            cannot run on an accelerator (default false)
//	    }
//	  ],
//	  "edges": [                      optional; in insertion order
//	    {"from": "input", "to": "fc1/matmul", "bytes": 524288}
//	  ]                               from/to name ops; bytes: integer >= 0 (default 0)
//	}
//
// An omitted optional field takes the default shown; Write omits fields
// that hold their default (except name, batch and training), and writes
// "measured" whenever the op's map is non-nil, even when empty, so that
// the round trip is exact. Integer fields refuse fractions and exponents
// ("1e3"); numbers out of the int64 or float64 range are errors.
//
// The graph read is validated (workloads.Graph.Validate: no cycle, no
// self-loop), and errors carry the file name and the line.
package native
