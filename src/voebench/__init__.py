"""voebench: violation-of-expectation physics stimuli (generate with Blender, score models on them).

The importable packages are ``voebench.generator`` (Blender side), ``voebench.scenes`` (one file per
test), and ``voebench.evaluate`` (model scoring; never imports bpy).
"""

__version__ = "0.1.0"
