#!/usr/bin/env bash
# Stop the broker started by start.sh (idempotent), wait for it to exit, delete its data directory.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
RUN_DIR="${KAFKA_RUN_DIR:-$ROOT/.tmp/kafka}"
PID_FILE="$RUN_DIR/kafka.pid"

if [[ -f "$PID_FILE" ]]; then
  PID="$(cat "$PID_FILE")"
  if kill -0 "$PID" 2>/dev/null; then
    kill "$PID"
    for _ in $(seq 1 60); do kill -0 "$PID" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$PID" 2>/dev/null; then
      echo "kafka: pid $PID still running after 30 s, sending SIGKILL" >&2
      kill -9 "$PID" 2>/dev/null || true
    fi
    echo "kafka: stopped pid $PID"
  fi
  rm -f "$PID_FILE"
else
  echo "kafka: not running (no $PID_FILE)"
fi
rm -rf "$RUN_DIR/data"
