#!/usr/bin/env bash
# Prints one markdown row per fuzz log in Fuzz/logs: target, seconds, executions, final
# coverage (edges) and features, corpus size, peak RSS, and whether it stopped on a finding.
set -uo pipefail
cd "$(dirname "$0")/.."
echo "| harness | seconds | executions | exec/s | coverage (edges) | features | corpus | peak RSS | ended |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
for log in Fuzz/logs/*.log; do
    target=$(basename "$log" .log)
    [ "$target" = lanes ] && continue
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')
    rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')
    rss=$(grep -o 'stat::peak_rss_mb: *[0-9]*' "$log" | tail -1 | grep -o '[0-9]*$')
    secs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | tail -1 | awk '{print $5}')
    last=$(grep -E '^#[0-9]+' "$log" | tail -1)
    cov=$(echo "$last" | grep -o 'cov: [0-9]*' | grep -o '[0-9]*')
    ft=$(echo "$last" | grep -o 'ft: [0-9]*' | grep -o '[0-9]*')
    corp=$(echo "$last" | grep -o 'corp: [0-9]*' | grep -o '[0-9]*')
    # Crashes, timeouts and out-of-memory stop a run; slow units are only noted.
    finding=$(grep -o 'Test unit written to [^ ]*' "$log" | grep -E '/(crash|timeout|oom|leak)-' | tail -1 | sed 's/Test unit written to //')
    slow=$(grep -c 'Test unit written to [^ ]*slow-unit' "$log")
    if [ -n "$finding" ]; then ended="finding: $finding"
    elif [ -n "$secs" ]; then ended="time limit, no finding"
    else ended="running"; runs=$(echo "$last" | awk "{print \$1}" | tr -d "#"); fi
    [ "$slow" -gt 0 ] && ended="$ended ($slow slow input$([ "$slow" -gt 1 ] && echo s) noted)"
    echo "| $target | ${secs:--} | ${runs:--} | ${rate:--} | ${cov:--} | ${ft:--} | ${corp:--} | ${rss:+$rss MB} | $ended |"
done
