"""Every tolerance the audit uses, each with the reason for its value, and the names of its checks and
conditions. docs/audit.md explains what each check proves."""

from __future__ import annotations

from voebench.generator.geometry import G
from voebench.generator.solids import PLANE_THICKNESS as PLANE_THICKNESS  # defined with the solids it shapes
from voebench.generator.thresholds import COLOR_TOL as COLOR_TOL  # shared with the scenes that stage a change
from voebench.generator.thresholds import MAX_SPEED as MAX_SPEED

PENETRATION_TOL = 0.005  # m: Bullet's resting contacts sink ~1 mm at 10 substeps; a real overlap is centimetres
IMPACT_SLACK = 0.05  # of the distance both objects move in a frame: Bullet lets a falling body sink into
# the floor for a substep when it lands (measured: 2 mm at 50 fps, 10 mm at 10 fps for a 1-2 m drop)
CONTACT_TOL = 0.005  # m: surfaces closer than this touch (same order as PENETRATION_TOL)
REST_SPEED = 0.01  # m/s: slower counts as at rest (Bullet's resting jitter is ~1e-4 m/s)
FREE_ACC_TOL = 2.0  # m/s^2: free flight may deviate from g by air damping (Bullet's 0.04/s) and integration
CONTACT_CONE_DEG = 60.0  # a contact pushes within this angle of its normal (friction up to tan 60 = 1.7)
FRICTION_SPEEDUP_TOL = 1.0  # m/s^2: friction never speeds a body up along a surface; this much covers spin
# taking hold after a landing and the finite differences of a curved path
IMPACT_ACC = 3 * G  # m/s^2: a normal push above this is an impact, not sliding or rolling contact
SLIDING = 0.3  # a body moves along a surface if its speed toward/away from it is below this fraction
SUPPORT_NORMAL_Z = 0.5  # a supporting contact's normal points up at least this much (slopes up to 60 deg)
REST_FRAMES = 5  # at rest this many consecutive frames: must be supported
SUPPORT_MARGIN = 0.02  # m: the centre of mass may lie this far outside its contact patch (sampling spacing)
PAIR_TOL = 1e-6  # m / unitless: twins come from the same deterministic build; only float noise may differ
WINDOW_SLACK = 1  # frames: finite differences straddle the window's edges by one frame
MAX_FRAMES_LISTED = 8  # frames quoted per finding in the report

PLAUSIBLE_CONDITIONS = ("plausible", "expected")
IMPLAUSIBLE_CONDITIONS = ("implausible", "surprising")

PHYSICS_CHECKS = (
    "no_interpenetration",
    "no_teleport",
    "no_velocity_jump",
    "falls_when_unsupported",
    "resting_supported",
    "color_constant",
    "visible_constant",
)
VIOLATION_CHECKS = ("violation_record", "violation_present", "hidden_when_manipulated", "pair_identical_before_onset")
# the physics checks that record an event (a jump, an overlap, a colour or existence change) rather than a state
EVENT_CHECKS = ("no_teleport", "no_velocity_jump", "no_interpenetration", "color_constant", "visible_constant")
