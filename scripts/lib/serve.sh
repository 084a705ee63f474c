# Sourced by the scripts that need a running server. `start_server LOG [NAME=VALUE...]` starts "$CURBI" serve on a
# free loopback port with those environment variables, its stderr in LOG; sets PORT and PID; stops it when the
# script exits; and returns once it answers (or after 10 s, when the calls that follow will say what is wrong).
start_server() {
  local log=$1
  shift
  PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  env "$@" "$CURBI" serve --addr "127.0.0.1:$PORT" 2>"$log" &
  PID=$!
  trap 'kill "$PID" 2>/dev/null || true' EXIT
  for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$PORT/ai.json" && break; sleep 0.1; done
}
