#!/usr/bin/env bash
# Retrain the shipped model from the datasets in ../shared/data (or $PITH_DATA): docs/retraining.md.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m export.prepare --out runs/data
python3 -m export.train --data runs/data --out runs/model "$@"
python3 -m export.onnx_export --data runs/data --run runs/model --assets native_host/assets
