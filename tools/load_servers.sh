# Sourced by the write path's measuring scripts: `start` and `stop` servers
# for arbiter-load, logs and pid files under $D, `$L` the load generator.
# Prints the machine first.
echo "== machine"; nproc; uptime; grep "model name" /proc/cpuinfo | head -1
start() { # bin port db extra...
  local bin=$1 port=$2 db=$3; shift 3
  if [ ! -x "$bin" ] || [ -d "$bin" ]; then echo "$bin: not a binary" >&2; exit 2; fi
  $bin serve --listen 127.0.0.1:$port --database-url $db --create-rate 0 "$@" >$D/serve-$port.log 2>&1 &
  echo $! > $D/pid-$port
  for i in $(seq 50); do $L --addr http://127.0.0.1:$port --rpc health --duration 0.2 --warmup 0 >/dev/null 2>&1 && break; sleep 0.2; done
}
stop() { kill $(cat $D/pid-$1); wait $(cat $D/pid-$1) 2>/dev/null; }
