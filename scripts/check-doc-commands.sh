#!/usr/bin/env bash
# Runs every example command of README.md and docs/*.md from the repository root, as written: the lines of ``` blocks
# that run build/chorus (after an optional "$ " prompt, `time`, `/usr/bin/time -f FMT` or `mpirun ...`), with
# backslash continuations joined. Outputs land in ignored paths (results/, traces/, *.msccl.xml, ... see .gitignore)
# or /tmp. One line per command; exit status 1 if any failed. Needs build/chorus (scripts/build.sh).
# Usage: scripts/check-doc-commands.sh [--list] [FILE.md ...]   (default: README.md and docs/*.md but docs/netopt.md,
#        whose commands its owner checks)
set -euo pipefail
cd "$(dirname "$0")/.."
list=false
if [[ ${1:-} == --list ]]; then list=true; shift; fi
files=("$@")
if ((${#files[@]} == 0)); then
  files=(README.md)
  for f in docs/*.md; do [[ $f == docs/netopt.md ]] || files+=("$f"); done
fi
commands=$(python3 - "${files[@]}" <<'PY'
import re, sys
runs = re.compile(r'^(time\s+|/usr/bin/time\s+-f\s+("[^"]*"|\'[^\']*\')\s+)?(mpirun\s+(-\S+\s+(\d+\s+)?)*)?build/chorus\s')
for path in sys.argv[1:]:
    in_block, pending = False, ""
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        if line.lstrip().startswith("```"):
            in_block, pending = not in_block, ""
            continue
        if not in_block:
            continue
        text = pending + line.rstrip("\n")
        if text.endswith("\\"):
            pending = text[:-1] + " "
            continue
        pending = ""
        command = text.strip()
        if command.startswith("$ "):
            command = command[2:]
        if runs.match(command):
            print(f"{path}:{number}\t{command}")
PY
)
if $list; then
  printf '%s\n' "$commands"
  exit 0
fi
[[ -x build/chorus ]] || { echo "check-doc-commands: build/chorus is missing; run scripts/build.sh" >&2; exit 1; }
failed=0
count=0
while IFS=$'\t' read -r where command; do
  [[ -n $command ]] || continue
  count=$((count + 1))
  log=$(mktemp /tmp/chorus-doc-command.XXXXXX)
  start=$EPOCHREALTIME
  if timeout 600 bash -c "$command" >"$log" 2>&1 </dev/null; then
    printf 'ok    %6.1f s  %s\n' "$(awk "BEGIN { print $EPOCHREALTIME - $start }")" "$where"
  else
    status=$?
    failed=$((failed + 1))
    printf 'FAIL  exit %d  %s: %s\n' "$status" "$where" "$command"
    tail -n 5 "$log" | sed 's/^/        /'
  fi
  rm -f "$log"
done <<<"$commands"
echo "check-doc-commands: $count commands, $failed failed"
((failed == 0))
