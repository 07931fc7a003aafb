"""Is every Level 1 statement true of what the video shows? One definition, used by the generation gate
(before a trial is rendered) and by the tests.

`check(test, scene, p, entry, width, height)` reads the manifest entry's prompts (a positive statement whose
answer is yes, a negative one whose answer is no, an open question with its answer) and judges them against the
built scene as the camera sees it at the video's resolution: object positions are projected with the scene's
camera, so "left" means left in the image, "moving" means the ball's image moves by enough pixels over enough
frames, and an object a statement is about must be in view and large enough to be seen. It needs no pixels
(occlusion and rendered visibility are the audit's job) and returns a list of problems, empty when all is true.

Each problem is a `Problem`: a str that also names the parameters or settings (`seconds`, `fps`, `resolution`,
dotted SPACE keys) it depends on, so a refusal can say what to change.
"""

from __future__ import annotations

import numpy as np

from voebench.generator.scene import Scene
from voebench.scenes.common import COLORS, TABLE_SIZE

# What "seen" means. Thresholds in pixels are at the video's resolution.
MIN_OBJECT_PX = 2.0  # an object a statement is about spans at least this many pixels (its smaller side)
IN_VIEW_SHARE = 0.75  # ... and at least this share of its projected bounding box lies inside the image
MIN_TRAVEL_PX = 4.0  # a ball said to move travels at least this far in the image (and at least its own size)
MIN_MOTION_SECONDS = 0.5  # ... and is seen moving for at least this long
MIN_MOTION_FRAMES = 3  # ... over at least this many frame-to-frame steps
DIRECTION_COS = np.cos(np.radians(15))  # the image motion is within 15 degrees of the stated direction
WRONG_DIRECTION_COS = np.cos(np.radians(60))  # and more than 60 degrees away from the negative statement's
MIN_SEPARATION_PX = 4.0  # two things compared left/right are this far apart in the image (centres)
STILL_M = 1e-9  # an object said not to move (or in a still scene) moves less than this in the world
MIN_VISIBLE_PIXELS = 4  # rendered: an object a statement is about covers at least this many pixels per frame

# image directions (u right, v down) of the Directionality labels; forward = up in the image
IMAGE_DIRECTIONS = {"forward": (0.0, -1.0), "backward": (0.0, 1.0), "left": (-1.0, 0.0), "right": (1.0, 0.0)}
SHAPES = {"ball": "sphere", "cube": "box"}


class Problem(str):
    """A false or unjudgeable statement, in words; `keys` names what it depends on."""

    keys: tuple[str, ...]

    def __new__(cls, text: str, keys=()):
        self = super().__new__(cls, text)
        self.keys = tuple(keys)
        return self


def check(test: str, scene: Scene, p, entry: dict, width: int, height: int) -> list[Problem]:
    """Problems with the statements of one Level 1 video (empty: every positive statement and open answer is
    true and every negative statement false, as the video shows it). The checks read the scene's tracks and
    the entry, not the sampled parameters `p` (so they cannot share a scene script's mistake); `p` is passed for
    checks that need a sampled value."""
    problems: list[Problem] = []
    prompts = _prompts(entry, problems)
    if prompts is None:
        return problems
    true, false, opened = prompts
    view = View(scene, width, height)
    problems += CHECKS[test](scene, p, view, true, false)
    if opened is not None and opened["answer"] != true:
        problems.append(Problem(f"open answer {opened['answer']!r} is not the true observation {true!r}"))
    if opened is not None and true not in opened.get("choices", {}):
        problems.append(Problem(f"open answer {true!r} has no keywords to score it"))
    return problems


def _prompts(entry, problems):
    """(true observation, false observation, open prompt or None), or None after noting what is malformed."""
    by_polarity = {p.get("polarity"): p for p in entry.get("prompts", []) if p.get("kind") == "binary"}
    pos, neg = by_polarity.get("positive"), by_polarity.get("negative")
    opened = [p for p in entry.get("prompts", []) if p.get("kind") == "open"]
    if pos is None or neg is None or len(opened) > 1:
        problems.append(Problem("the entry needs one positive and one negative binary statement, at most one open"))
        return None
    if pos["answer"] != "yes" or neg["answer"] != "no":
        problems.append(Problem("the positive statement's answer must be yes and the negative one's no"))
    for prompt in (pos, neg):
        if prompt["observation"] not in prompt["text"]:
            problems.append(Problem(f"statement {prompt['text']!r} does not say {prompt['observation']!r}"))
    if pos["observation"] == neg["observation"]:
        problems.append(Problem("the negative statement says the same as the positive one"))
    return pos["observation"], neg["observation"], (opened[0] if opened else None)


# ------------------------------------------------------------------------------------------------ the camera


class View:
    """The scene's objects as the camera sees them at `width` x `height`, all frames at once."""

    def __init__(self, scene: Scene, width: int, height: int):
        self.scene, self.width, self.height = scene, width, height
        self.K = scene.cam.intrinsics(width, height)
        cam = scene.cam
        if np.ptp(cam.position, axis=0).max() == 0 and np.ptp(cam.look_at, axis=0).max() == 0:
            # a still camera (all of Level 1): one inverse instead of one per frame (1,200 at 20 s, 60 fps)
            self.cam_to_world = np.broadcast_to(cam.cam_to_world(0), (scene.n_frames, 4, 4))
        else:
            self.cam_to_world = np.stack([cam.cam_to_world(t) for t in range(scene.n_frames)])
        self.E = np.linalg.inv(self.cam_to_world)

    def project(self, points: np.ndarray, frames=slice(None)) -> tuple[np.ndarray, np.ndarray]:
        """World points (F,N,3), one set per frame of `frames`, to pixels (F,N,2) and depths (F,N)."""
        E = self.E[frames]
        cam = np.einsum("tij,tnj->tni", E[:, :3, :3], points) + E[:, None, :3, 3]
        q = cam @ self.K.T
        return q[..., :2] / q[..., 2:3], cam[..., 2]

    def centres(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(T,2) image positions of the object's centre and (T,) depths."""
        uv, depth = self.project(self.scene[name].position[:, None])
        return uv[:, 0], depth[:, 0]

    def boxes(self, name: str, frames=slice(None)) -> np.ndarray:
        """(F,4) image bounding boxes (u0, v0, u1, v1) of the object at `frames`, NaN where any of it is behind
        the camera. A box's 8 corners; a sphere's silhouette as the disc facing the camera."""
        o = self.scene[name]
        position = o.position[frames]
        if o.shape == "sphere":
            r = o.dimensions[0] / 2
            c2w = self.cam_to_world[frames]
            right, down = c2w[:, :3, 0], c2w[:, :3, 1]  # camera axes in the world
            offsets = r * np.stack([right, -right, down, -down], axis=1)
        else:
            corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * o.dimensions / 2
            offsets = np.einsum("tij,nj->tni", rotations(o.quaternion[frames]), corners)
        uv, depth = self.project(position[:, None] + offsets, frames)
        box = np.concatenate([uv.min(axis=1), uv.max(axis=1)], axis=1)
        box[(depth <= 0).any(axis=1)] = np.nan
        return box

    def seen(self, name: str, frames=None) -> list[Problem]:
        """Problems if the object is not in view (enough of its box inside the image) or too small, at the
        first frame where it fails."""
        frames = np.arange(self.scene.n_frames) if frames is None else np.asarray(frames)
        b = self.boxes(name, frames)
        keys = ("resolution",)
        w, h = b[:, 2] - b[:, 0], b[:, 3] - b[:, 1]
        inside = np.clip(np.minimum(b[:, 2], self.width) - np.maximum(b[:, 0], 0), 0, None) * np.clip(
            np.minimum(b[:, 3], self.height) - np.maximum(b[:, 1], 0), 0, None
        )
        for i, t in enumerate(frames):
            if np.isnan(b[i]).any():
                return [Problem(f"{name} is behind the camera at frame {t}", ("camera",))]
            if min(w[i], h[i]) < MIN_OBJECT_PX:
                return [
                    Problem(f"{name} spans {min(w[i], h[i]):.1f} px at frame {t}, less than {MIN_OBJECT_PX:g} px", keys)
                ]
            if inside[i] < IN_VIEW_SHARE * w[i] * h[i]:
                return [
                    Problem(
                        f"{name} is out of view at frame {t} ({inside[i] / (w[i] * h[i]):.0%} of it in "
                        f"the {self.width}x{self.height} image)",
                        keys,
                    )
                ]
        return []

    def size(self, name: str, t: int = 0) -> float:
        """The object's larger projected side at frame t, pixels (0 if it is behind the camera)."""
        b = self.boxes(name, [t])[0]
        return 0.0 if np.isnan(b).any() else float(max(b[2] - b[0], b[3] - b[1]))


def rotations(q: np.ndarray) -> np.ndarray:
    """(T,3,3) rotation matrices of (T,4) w x y z quaternions."""
    w, x, y, z = np.moveaxis(np.asarray(q, float), -1, 0)
    return np.stack(
        [
            np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], -1),
            np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], -1),
            np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1),
        ],
        -2,
    )


def _still(scene: Scene, names) -> list[Problem]:
    """Problems if any of these objects moves or turns (a still scene: 'Nothing moves')."""
    out = []
    for name in names:
        o = scene[name]
        if np.ptp(o.position, axis=0).max() > STILL_M or np.ptp(o.quaternion, axis=0).max() > STILL_M:
            out.append(Problem(f"{name} moves, but the scene is still"))
    return out


def _on_table(scene: Scene, name: str) -> list[Problem]:
    o = scene[name]
    x, y, z = o.position[0]
    if abs(x) > TABLE_SIZE[0] / 2 or abs(y) > TABLE_SIZE[1] / 2 or abs(z - o.dimensions[2] / 2) > 1e-6:
        return [Problem(f"{name} does not rest on the table (centre at {x:.2f}, {y:.2f}, {z:.2f})", ("place",))]
    return []


def _color_name(rgb) -> str | None:
    return next((c for c, ref in COLORS.items() if np.allclose(rgb, ref)), None)


# ------------------------------------------------------------------------------------------------ per test


def _single_object(scene, view, roles):
    objs = [o for o in scene.objects.values() if o.role in roles]
    if len(objs) != 1:
        return None, [Problem(f"expected one object the statement is about, found {len(objs)}")]
    o = objs[0]
    return o, view.seen(o.name, [0]) + _still(scene, [o.name]) + _on_table(scene, o.name)


def check_shape(scene, p, view, true, false):
    o, problems = _single_object(scene, view, ("ball", "cube"))
    if o is None:
        return problems
    if SHAPES.get(true) != o.shape:
        problems.append(Problem(f"says a {true}, but the object is a {o.shape}"))
    if SHAPES.get(false) == o.shape:
        problems.append(Problem(f"the negative statement (a {false}) is true: the object is a {o.shape}"))
    return problems


def check_color(scene, p, view, true, false):
    o, problems = _single_object(scene, view, ("ball",))
    if o is None:
        return problems
    seen = _color_name(o.color[0])
    if np.ptp(o.color, axis=0).max() > 0:
        problems.append(Problem("the ball changes colour"))
    if seen != true:
        problems.append(Problem(f"says {true}, but the ball is {seen or tuple(o.color[0])}"))
    if seen == false:
        problems.append(Problem(f"the negative statement ({false}) is true"))
    return problems


def ball_motion(scene: Scene, view: View, name: str = "ball"):
    """(image positions (T,2), number of frame steps in which the ball moves in the world)."""
    uv, _ = view.centres(name)
    steps = np.linalg.norm(np.diff(scene[name].position, axis=0), axis=1)
    return uv, int((steps > STILL_M).sum())


def _moves_visibly(scene, view, uv, moving_steps) -> list[Problem]:
    problems = []
    timing = ("start_delay", "seconds", "fps")
    if moving_steps < MIN_MOTION_FRAMES or moving_steps / scene.fps < MIN_MOTION_SECONDS:
        problems.append(
            Problem(
                f"the ball moves during {moving_steps} frame steps ({moving_steps / scene.fps:.2f} s); "
                f"a statement about its motion needs {MIN_MOTION_FRAMES} and "
                f"{MIN_MOTION_SECONDS:g} s",
                timing,
            )
        )
    travel = float(np.linalg.norm(uv[-1] - uv[0]))
    need = max(MIN_TRAVEL_PX, view.size("ball"))
    if travel < need:
        problems.append(
            Problem(
                f"the ball travels {travel:.1f} px in the image; it must travel {need:.1f} px "
                f"(its own size, at least {MIN_TRAVEL_PX:g})",
                (*timing, "resolution", "speed"),
            )
        )
    return problems


def check_directionality(scene, p, view, true, false):
    problems = view.seen("ball")
    uv, moving_steps = ball_motion(scene, view)
    problems += _moves_visibly(scene, view, uv, moving_steps)
    net = uv[-1] - uv[0]
    if np.linalg.norm(net) == 0 or true not in IMAGE_DIRECTIONS:
        return problems + [Problem(f"the ball does not move {true} in the image")]
    unit = net / np.linalg.norm(net)
    if np.dot(unit, IMAGE_DIRECTIONS[true]) < DIRECTION_COS:
        problems.append(Problem(f"says {true}, but the ball moves by {net.round(1).tolist()} px (u right, v down)"))
    if np.any(np.diff(uv, axis=0) @ np.asarray(IMAGE_DIRECTIONS[true]) < -1e-6):
        problems.append(Problem(f"the ball turns back against {true} in the image"))
    if false in IMAGE_DIRECTIONS and np.dot(unit, IMAGE_DIRECTIONS[false]) > WRONG_DIRECTION_COS:
        problems.append(Problem(f"the negative statement ({false}) is true of the motion {net.round(1).tolist()} px"))
    return problems


def check_movement(scene, p, view, true, false):
    problems = view.seen("ball")
    uv, moving_steps = ball_motion(scene, view)
    if true == "moving":
        problems += _moves_visibly(scene, view, uv, moving_steps)
    elif true == "not moving":
        problems += [Problem("says not moving, but the ball moves")] if moving_steps else []
        problems += _still(scene, ["ball"])
    else:
        problems.append(Problem(f"unknown movement label {true!r}"))
    if {true, false} != {"moving", "not moving"}:
        problems.append(Problem(f"the negative statement ({false}) is not the other label"))
    return problems


def check_ordering(scene, p, view, true, false):
    objs = [o for o in scene.objects.values() if o.role in ("ball", "cube")]
    problems = _still(scene, [o.name for o in objs])
    for o in objs:
        problems += view.seen(o.name, [0])
    centres = {o.name: view.centres(o.name)[0][0] for o in objs}
    row = sorted(objs, key=lambda o: centres[o.name][0])
    for a, b in zip(row, row[1:]):
        gap = centres[b.name][0] - centres[a.name][0]
        need = max(MIN_SEPARATION_PX, 0.5 * max(view.size(a.name), view.size(b.name)))
        if gap < need:
            problems.append(
                Problem(
                    f"{a.name} and {b.name} are {gap:.1f} px apart left to right, less than {need:.1f} px",
                    ("spacing", "resolution"),
                )
            )
    names = [f"{_color_name(o.color[0])} {'ball' if o.shape == 'sphere' else 'cube'}" for o in row]
    seen = ", ".join(names)
    if len(set(names)) != len(names):
        problems.append(Problem(f"two objects look alike: {seen}"))
    if true != seen:
        problems.append(Problem(f"says {true!r}, but left to right the image shows {seen!r}"))
    if false == seen:
        problems.append(Problem(f"the negative statement ({false!r}) is true"))
    if sorted(false.split(", ")) != sorted(names):
        problems.append(Problem(f"the negative statement ({false!r}) is not a reordering of the objects"))
    return problems


def check_relational(scene, p, view, true, false):
    problems = view.seen("ball", [0]) + _still(scene, ["ball", "barrier"])
    ball_u = view.centres("ball")[0][0][0]
    barrier_u = view.centres("barrier")[0][0][0]
    side = "left" if ball_u < barrier_u else "right"
    need = max(MIN_SEPARATION_PX, view.size("ball") / 2)
    if abs(ball_u - barrier_u) < need:
        problems.append(
            Problem(
                f"the ball's centre is {abs(ball_u - barrier_u):.1f} px from the barrier's, less than {need:.1f} px",
                ("distance", "resolution"),
            )
        )
    if true != side:
        problems.append(Problem(f"says {true}, but the ball is on the {side} of the barrier in the image"))
    if false == side:
        problems.append(Problem(f"the negative statement ({false}) is true"))
    return problems


def subjects(test: str, scene: Scene) -> list[str]:
    """The objects the statements of this test are about (they must be seen in every frame)."""
    if test == "relational":
        return ["ball", "barrier"]
    return [o.name for o in scene.objects.values() if o.role in ("ball", "cube")]


def check_pixels(test: str, scene: Scene, visible_pixels: dict) -> list[Problem]:
    """After rendering: problems if an object the statements are about covers fewer than MIN_VISIBLE_PIXELS
    pixels in some frame (`visible_pixels`: object name -> per-frame counts from the segmentation, as the
    HDF5 `objects/<name>/visible_pixels`). This sees occlusion, which `check` cannot."""
    problems = []
    for name in subjects(test, scene):
        counts = np.asarray(visible_pixels[name])
        if counts.min() < MIN_VISIBLE_PIXELS:
            t = int(np.argmin(counts))
            problems.append(
                Problem(
                    f"{name} covers {int(counts[t])} rendered pixels at frame {t}, fewer than {MIN_VISIBLE_PIXELS}",
                    ("resolution",),
                )
            )
    return problems


CHECKS = {
    "shape": check_shape,
    "color": check_color,
    "directionality": check_directionality,
    "movement": check_movement,
    "ordering": check_ordering,
    "relational": check_relational,
}
