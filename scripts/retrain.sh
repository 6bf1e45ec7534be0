#!/usr/bin/env bash
# Retrain the shipped model from the datasets in ../shared/data (or $PITH_DATA): docs/retraining.md.
# Recording renders every page in Debian's Chromium once (resumable; kept in the user cache dir), then the
# model learns from each page's HTML snapshot and its live snapshot.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m export.record --split all
CACHE=$(python3 -c "from export import recordings; print(recordings.default_dir())")
python3 -m export.prepare --out runs/data-mix --mix --snapshots "all=$CACHE/snapshots-all.msgpack"
python3 -m export.train --data runs/data-mix --out runs/model "$@"
python3 -m export.onnx_export --data runs/data-mix --run runs/model --assets native_host/assets
