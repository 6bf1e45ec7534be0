"""Training and data tooling: datasets, gold labels, the torch model and its int8 ONNX export."""
