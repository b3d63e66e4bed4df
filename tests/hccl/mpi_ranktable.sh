#!/bin/sh
# HCCL rank tables under mpirun (issue 22): two processes read the same rank table, the MPI example
# taking its rank from MPI_Comm_rank, then a program that knows nothing of MPI taking it from
# Open MPI's OMPI_COMM_WORLD_RANK. Each run is bounded; every rank's output line is checked.
#   mpi_ranktable.sh HCCL_MPI HCCL_MULTIPROCESS
set -eu
mpi="timeout 60 mpirun --allow-run-as-root --oversubscribe -np 2"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# A port nobody listens on now, for rank 0's rendezvous.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$dir/table.json" <<JSON
{"status": "completed", "version": "1.0", "server_count": "1",
 "server_list": [{"server_id": "node_0", "host_ip": "127.0.0.1", "device": [
   {"device_id": "0", "rank_id": "0", "host_port": "$port"},
   {"device_id": "1", "rank_id": "1"}]}]}
JSON
$mpi "$1" --rank-table "$dir/table.json" >"$dir/mpi.out" 2>&1 || { cat "$dir/mpi.out"; exit 1; }
cat "$dir/mpi.out"
grep -q "rankId: 1, device 1, output: \[ 1 3 5 7 9 11 13 15 \] OK" "$dir/mpi.out"
grep -q "hccl mpi allreduce, 2 ranks: OK" "$dir/mpi.out"
# shellcheck disable=SC2016
$mpi sh -c 'exec "$0" --rank-table "$1" "$OMPI_COMM_WORLD_RANK"' "$2" "$dir/table.json" >"$dir/env.out" 2>&1 ||
  { cat "$dir/env.out"; exit 1; }
cat "$dir/env.out"
grep -q "rank 1: hccl multiprocess allreduce: OK" "$dir/env.out"
grep -q "rank 0: hccl multiprocess allreduce: OK" "$dir/env.out"
echo "mpi rank tables: OK"
