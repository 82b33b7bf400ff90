#!/bin/sh
# Prints facts about the machine this runs on (inside the sandbox), from /proc and df.
what="${1:-all}"
cpu() { echo "cpus: $(grep -c ^processor /proc/cpuinfo)"; echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"; }
memory() { grep -E '^(MemTotal|MemAvailable|SwapTotal|SwapFree):' /proc/meminfo; }
disk() { df -h / /workspace 2>/dev/null || df -h /; }
processes() { ps -eo pid,pcpu,pmem,comm --sort=-pcpu 2>/dev/null | head -n 6 || echo "ps is not available"; }
case "$what" in
  cpu) cpu ;;
  memory) memory ;;
  disk) disk ;;
  processes) processes ;;
  all) cpu; memory; disk; processes ;;
  *) echo "usage: sysinfo.sh [cpu|memory|disk|processes|all]" >&2; exit 2 ;;
esac
