"""The generator: scene model, sampling, simulation, rendering and ground-truth writing."""
