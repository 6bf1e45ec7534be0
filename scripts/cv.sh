#!/usr/bin/env bash
# Site-grouped cross-validation of the training recipe on the HTML pages: docs/model.md ("Page types").
# Each fold's sites (two of the ten hash buckets) are held out, a model is trained on every other page with a
# fixed recipe (no choice made on the fold), exported to int8 like the shipped one, and scored through the
# serving code on the fold's pages beside trafilatura and readability-lxml in the same run. The folds' rows
# pooled give every dataset and WCXB type over every page, each scored by a model that never saw its site.
#
#   bash scripts/cv.sh                 # prepare (once), then every fold, then the table
#   bash scripts/cv.sh fold 3          # one fold: train, export, score
#   bash scripts/cv.sh table           # the table from the folds scored so far
#   bash scripts/cv.sh peers 3         # the peers alone on fold 3 (then PEERS= bash scripts/cv.sh score 3)
#   bash scripts/cv.sh recipes FILE   # several recipes, every fold (a GPU machine: export.train --device)
#   bash scripts/cv.sh rules NAME      # the folds' models through the working tree's rules, as NAME
#   bash scripts/cv.sh live NAME       # the same on the live snapshots (SNAPSHOTS, recorded --split all)
#
# DATA (runs/data), OUT (runs/cv), FOLDS (5), EPOCHS (the epochs each fold trains), DATASETS (the datasets
# scored, comma-separated; default all), PEERS (trafilatura,readability-lxml), JOBS (1) and SNAPSHOTS (the
# recorded corpus; default the user cache's snapshots-all.msgpack) can be set.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${DATA:-runs/data}
OUT=${OUT:-runs/cv}
FOLDS=${FOLDS:-5}
EPOCHS=${EPOCHS:-6}
PEERS=${PEERS-trafilatura,readability-lxml}

train() {
    python3 -m export.train --data "$DATA" --out "$OUT/fold-$1" --folds "$FOLDS" --fold "$1" --epochs "$EPOCHS"
}

score() {
    # The int8 model itself is what is scored: its parity with fp32 (on 300 of the fold's pages) is recorded in
    # the fold's model.json, not a gate.
    python3 -m export.onnx_export --data "$DATA" --run "$OUT/fold-$1" --assets "$OUT/fold-$1/assets" \
        --limit-pages 300 --max-drop 1
    evaluate "$1" "pith:$OUT/fold-$1/assets${PEERS:+,$PEERS}" "$OUT/fold-$1"
}

# The peers alone on a fold's pages (the same pages `score` takes), for a run that scores them while the
# models train; `score` with PEERS= then scores Pith alone. The table pools the rows either way.
peers() {
    evaluate "$1" "$PEERS" "$OUT/fold-$1-peers"
}

evaluate() {
    python3 -m bench.evaluate --extractors "$2" ${DATASETS:+--datasets "$DATASETS"} --folds "$FOLDS" --fold "$1" \
        --jsonl "$3.jsonl" --out "$3.md"
}

# Every fold of each recipe in FILE (a line each: a name, then export.train's extra arguments, e.g.
# "wide --set d_model=256 ff=512"), JOBS trainings at a time (on one GPU, side by side is no faster than one
# after another), into $OUT/NAME/fold-K. Nothing is exported or
# scored through the serving code: each train.json holds its held-out pages' quick scores (block selection
# alone), which `python -m export.held_out $OUT/*/fold-*/train.json` turns into rows for bench.by_type.
recipes() {
    local name args k
    while read -r name args; do
        for ((k = 0; k < FOLDS; k++)); do
            while (($(jobs -rp | wc -l) >= ${JOBS:-1})); do wait -n || true; done
            mkdir -p "$OUT/$name/fold-$k"
            # shellcheck disable=SC2086 # the recipe's arguments are words
            python3 -m export.train --data "$DATA" --out "$OUT/$name/fold-$k" --folds "$FOLDS" --fold "$k" \
                --epochs "$EPOCHS" --threads 1 $args >"$OUT/$name/fold-$k/log" 2>&1 &
        done
    done < <(grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "$1")
    wait
}

# Each fold's exported model ($OUT/fold-K/assets) on its held-out pages through the rules of the working
# tree, Pith alone, pooled into $OUT/rules/NAME.jsonl with the rows named NAME: no training, about a minute
# for WCXB's pages on 2 cores. Two such runs compared, paired by page:
#   python -m bench.by_type $OUT/rules/base.jsonl $OUT/rules/NAME.jsonl --extractor NAME --versus base
rules() {
    local k
    mkdir -p "$OUT/rules"
    for ((k = 0; k < FOLDS; k++)); do
        evaluate "$k" "pith:$OUT/fold-$k/assets" "$OUT/rules/$1-$k" >/dev/null  # the report is in the .md
    done
    cat "$OUT/rules/$1"-[0-9]*.jsonl | sed -E "s/\"extractor\": \"pith:[^\"]*\"/\"extractor\": \"$1\"/" \
        >"$OUT/rules/$1.jsonl"
}

# The folds' models on the live snapshots of their held-out pages, beside the same pages' HTML (bench.live),
# pooled into $OUT/live/NAME.jsonl (extractors "NAME@html", "NAME@live", "NAME@live, stripped"):
#   python -m bench.by_type $OUT/live/NAME.jsonl --extractor NAME@live --versus NAME@html
live() {
    local k snapshots
    snapshots=${SNAPSHOTS:-$(python3 -c "from export import recordings; print(recordings.default_path('all'))")}
    mkdir -p "$OUT/live"
    for ((k = 0; k < FOLDS; k++)); do
        python3 -m bench.live --snapshots "$snapshots" --model "$1=$OUT/fold-$k/assets" --folds "$FOLDS" \
            --fold "$k" ${DATASETS:+--datasets "$DATASETS"} --jsonl "$OUT/live/$1-$k.jsonl" --out "$OUT/live/$1-$k.md" \
            >/dev/null
    done
    cat "$OUT/live/$1"-[0-9]*.jsonl >"$OUT/live/$1.jsonl"
}

table() {
    python3 -m bench.by_type "$OUT"/fold-*.jsonl
}

case "${1:-all}" in
    train) train "$2" ;;
    score) score "$2" ;;
    peers) peers "$2" ;;
    fold) train "$2" && score "$2" ;;
    table) table ;;
    recipes) recipes "$2" ;;
    rules) rules "$2" ;;
    live) live "$2" ;;
    all)
        [ -f "$DATA/pages.pkl" ] || python3 -m export.prepare --out "$DATA"
        for ((k = 0; k < FOLDS; k++)); do train "$k" && score "$k"; done
        table
        ;;
    *)
        echo "cv.sh: unknown step '$1'; use all, fold K, train K, score K, peers K, recipes FILE, rules NAME, live NAME or table" >&2
        exit 2
        ;;
esac
