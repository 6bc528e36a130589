"""XManager's `xmanager.contrib` helpers that are plain Python over `xm` (gcs paths, a
TensorBoard auxiliary unit), written for sortie; the sortie-compat path maps
`xmanager.contrib.gcs` and `xmanager.contrib.tensorboard` here (docs/python.md)."""
