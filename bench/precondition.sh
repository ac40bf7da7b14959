# shellcheck shell=bash
# Sourced by bench/run and bench/hostmem-pairs: writes a 1 GiB memory namespace end to end before
# it is measured, as storage benchmarks precondition a drive. A never-written ram namespace reads
# the kernel's shared zero page: every random 4 KiB read copies the same cache-hot 4 KiB (measured
# here: 506K IOPS at 4 KiB QD32 before a write pass, 331K-355K after), while hostmem's pages are
# real (skiff-host commits them). 128 KiB writes at QD32 for 2 s cover the namespace several times
# over; a pass that fell short is said on stderr.
#   precondition_namespace SKIFF_PERF PORT NQN CORE LABEL
precondition_namespace() {
  local perf=$1 port=$2 nqn=$3 core=$4 label=$5 json bytes
  json=$("$perf" --port "$port" --nqn "$nqn" --rw write --bs 128k --qd 32 --time 2s --ramp 0 \
         --cores "$core" --json --no-progress)
  bytes=$(python3 -c "import json,sys; d=json.loads(sys.argv[1]); print(int(d['ios'] * d['bs']))" "$json")
  if [ "$bytes" -lt $((1 << 30)) ]; then
    echo "$label: the preconditioning pass wrote only $bytes bytes of the 1 GiB namespace" >&2
  else
    echo "$label: preconditioned (wrote $((bytes >> 20)) MiB over the 1 GiB namespace)" >&2
  fi
}
