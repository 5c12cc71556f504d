#!/usr/bin/env bash
# Trains every spec in models/ briefly on real data and prints a table of first/last-epoch loss,
# accuracy and seconds per epoch (issue "Model zoo": "every spec trains and its loss falls").
# Needs `./ntk4j data fetch mnist` and `./ntk4j data fetch cifar10`. Usage: scripts/train_all_models.sh [OUT_DIR]
# ONLY="run resnet20 cifar10 2 0.05 --n 200" scripts/train_all_models.sh  runs just the given lines.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-runs/zoo}"
mkdir -p "$out"
common=(--batch-size 64 --seed 0)
run() { # name dataset epochs lr extra...
  local name=$1 ds=$2 ep=$3 lr=$4; shift 4
  rm -rf "$out/$name"
  ./ntk4j train --model "$name" --dataset "$ds" --epochs "$ep" --lr "$lr" "${common[@]}" ${OPT:---optimizer sgd --momentum 0.9} "$@" --out "$out/$name" >"$out/$name.log" 2>&1 \
    || { echo "| $name | FAILED: $(tail -1 "$out/$name.log") |"; return; }
  python3 - "$out/$name" "$name" "$ds $*" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1] + "/metrics.jsonl") if '"kind":"epoch"' in l]
a, b = rows[0], rows[-1]
sec = sum(r["seconds"] for r in rows) / len(rows)
print(f"| {sys.argv[2]} | {sys.argv[3]} | {a['train_loss']:.4f} → {b['train_loss']:.4f} | {a['train_accuracy']:.3f} → {b['train_accuracy']:.3f} | {b['test_accuracy']:.3f} | {sec:.1f} |")
PY
}
echo "| model | data | train loss (epoch 1 → last) | train acc | test acc | s/epoch |"
echo "| --- | --- | --- | --- | --- | --- |"
[ -z "${ONLY:-}" ] || { eval "$ONLY"; exit 0; }
run mlp-quickstart mnist 3 0.05 --n 200
run mlp-relu mnist 3 0.05 --n 200
run ffnn-d10-w100 mnist 3 0.01 --n 200
run ffnn-d10-w256 cifar10 3 0.005 --n 200
OPT="--optimizer adam" run mlp5-w256 cifar10 3 0.001 --n 200   # PyTorch-default init, no bias: SGD barely moves
run mlp2-relu-100 mnist 3 0.05 --n 200 --classes 0,1 --loss mse --target pm1
run linear-784-100-1 mnist 5 0.2 --n 200 --classes 0,1 --loss mse --target pm1
run vgg11-bn-mnist mnist 2 0.02 --n 200 --pad 2
run resnet20 cifar10 2 0.05 --n 200
run resnet56 cifar10 2 0.05 --n 200
run resnet18 cifar10 2 0.02 --n 200
OPT="--optimizer adam" run vgg11 cifar10 4 0.0005 --n 200   # torch-default init without BN: SGD barely moves in a few epochs
run vgg11-bn cifar10 2 0.02 --n 200
run vgg16-bn cifar10 2 0.02 --n 200
run vgg19-bn cifar10 2 0.02 --n 200 --outputs 10
run densenet40 cifar10 2 0.05 --n 200
run densenet40-bc cifar10 2 0.05 --n 200
run densenet100-bc cifar10 2 0.05 --n 200
run wrn-10-4 cifar10 3 0.01 --n 200 --classes 0,1 --loss mse --target pm1
