#!/usr/bin/env bash
# Start a throwaway single-node Kafka (KRaft, broker+controller) on 127.0.0.1 from Maven Central jars.
# Idempotent: exits 0 at once when a broker already answers on the port.
# Env: KAFKA_PORT (9092), KAFKA_CONTROLLER_PORT (9093), KAFKA_RUN_DIR (<repo>/.tmp/kafka), KAFKA_READY_TIMEOUT (60 s).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PORT="${KAFKA_PORT:-9092}"
CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-9093}"
RUN_DIR="${KAFKA_RUN_DIR:-$ROOT/.tmp/kafka}"
DATA_DIR="$RUN_DIR/data"
PID_FILE="$RUN_DIR/kafka.pid"
LOG_FILE="$RUN_DIR/kafka.log"
OUT_FILE="$RUN_DIR/kafka.out"
LIB="$HERE/lib"
TIMEOUT="${KAFKA_READY_TIMEOUT:-60}"

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
ready() { node "$HERE/wait-ready.mjs" "127.0.0.1:$PORT" >/dev/null 2>&1; }
# Whether process $1 holds the listening socket of 127.0.0.1:$PORT (its inode in /proc/net/tcp among the process's fds):
# a broker that answers on the port is only ours if the started JVM listens there. Without /proc: assumed.
owns_port() {
  [[ -r /proc/net/tcp ]] || return 0
  local inode
  inode="$(awk -v p="$(printf ':%04X' "$PORT")" '$2 ~ p"$" && $4 == "0A" { print $10; exit }' /proc/net/tcp /proc/net/tcp6 2>/dev/null)"
  [[ -n "$inode" ]] && ls -l "/proc/$1/fd" 2>/dev/null | grep -q "socket:\\[$inode\\]"
}
fail() {
  echo "kafka: $1" >&2
  for f in "$LOG_FILE" "$OUT_FILE"; do
    if [[ -s "$f" ]]; then echo "--- tail $f" >&2; tail -n 40 "$f" >&2; fi
  done
  if [[ -f "$PID_FILE" ]]; then kill "$(cat "$PID_FILE")" 2>/dev/null || true; rm -f "$PID_FILE"; fi
  exit 1
}

if port_open "$PORT"; then
  echo "kafka: a broker already answers on 127.0.0.1:$PORT"
  exit 0
fi
command -v java >/dev/null || { echo "kafka: java not found (Kafka 4.x needs Java 17+)" >&2; exit 1; }

if [[ ! -f "$LIB/kafka_2.13-$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$HERE/pom.xml").jar" ]]; then
  command -v mvn >/dev/null || { echo "kafka: $LIB is empty and mvn is not installed" >&2; exit 1; }
  echo "kafka: gathering broker jars from Maven Central into $LIB"
  rm -rf "$LIB"
  mvn -q -B -f "$HERE/pom.xml" package >&2
fi

rm -rf "$DATA_DIR"
mkdir -p "$DATA_DIR"
: > "$LOG_FILE"
sed -e "s#@DATA_DIR@#$DATA_DIR#g" -e "s#@PORT@#$PORT#g" -e "s#@CONTROLLER_PORT@#$CONTROLLER_PORT#g" \
  "$HERE/server.properties.template" > "$RUN_DIR/server.properties"

JAVA_LOG_OPTS=(-Dlog4j2.configurationFile="$HERE/log4j2.xml" -Dkafka.logs.dir="$RUN_DIR")
CLUSTER_ID="$(java "${JAVA_LOG_OPTS[@]}" -cp "$LIB/*" kafka.tools.StorageTool random-uuid)"
java "${JAVA_LOG_OPTS[@]}" -cp "$LIB/*" kafka.tools.StorageTool format -t "$CLUSTER_ID" \
  -c "$RUN_DIR/server.properties" > "$OUT_FILE" 2>&1 || fail "storage format failed"

nohup java -Xms256m -Xmx512m -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true "${JAVA_LOG_OPTS[@]}" \
  -cp "$LIB/*" kafka.Kafka "$RUN_DIR/server.properties" >> "$OUT_FILE" 2>&1 < /dev/null &
echo $! > "$PID_FILE"

deadline=$((SECONDS + TIMEOUT))
while (( SECONDS < deadline )); do
  kill -0 "$(cat "$PID_FILE")" 2>/dev/null || fail "broker process exited during startup"
  if port_open "$PORT" && ready; then
    # Another process took the port between the caller's pick and the JVM's bind (a harness's broker on a port it
    # chose): clients would talk to that one, so fail rather than hand out a broker this pid does not serve.
    owns_port "$(cat "$PID_FILE")" || fail "127.0.0.1:$PORT answers, but not from pid $(cat "$PID_FILE"): another process serves the port"
    echo "kafka: broker ready on 127.0.0.1:$PORT (pid $(cat "$PID_FILE"), logs $LOG_FILE)"
    exit 0
  fi
  sleep 0.5
done
fail "broker not ready after ${TIMEOUT}s"
