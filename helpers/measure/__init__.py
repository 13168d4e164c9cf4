"""Measuring a device: its peaks, the yardstick of every share the course prints
(:mod:`~helpers.measure.peaks`), and the independent references that check that yardstick
(:mod:`~helpers.measure.references`)."""
