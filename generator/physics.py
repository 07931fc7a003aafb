"""Rigid-body simulation entry point for scene scripts: `simulate(scene)` fills the tracks of every active
body. Bullet runs inside Blender, so bpy is imported only when a scene actually has bodies to simulate."""

from __future__ import annotations

from voebench.generator.scene import Scene


def simulate(scene: Scene, substeps: int = 10, iterations: int = 20) -> None:
    """Run Bullet over the whole timeline (see generator/blender/bullet.py for the body kinds)."""
    if not any(o.body is not None and o.body.kind == "active" for o in scene.objects.values()):
        return
    from voebench.generator.blender.bullet import simulate as bullet_simulate

    bullet_simulate(scene, substeps=substeps, iterations=iterations)
