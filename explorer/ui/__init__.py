"""The Qt layer: one package or module per pane, over the core."""
