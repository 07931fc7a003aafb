"""`voebench audit DIR`: check the physics of every video from its written ground truth alone.

The audit reads each video's HDF5 (object shapes, sizes, poses, colours, `visible`, `visible_pixels`, the
`fixture` flags, the `violation` record) and its manifest entry; it never runs a scene script, so it checks
what was actually written, not what a script meant to write. docs/audit.md explains every check, what it
proves and what it cannot see.

Plausible videos (Level 1, Level 2 `plausible`, AVoE `expected`) must pass every physics check. Implausible /
surprising videos must show their recorded violation inside its frame window, pass every physics check outside
that window (and on every other object), keep a hidden manipulation out of view, and match their plausible twin
exactly before the violation's first frame.

Modules, one concern each:
    tolerances  every tolerance with its reason; check and condition names
    shapes      Shape (an object's solid: sdf, surface samples) and Track (its written per-frame state)
    contacts    gap, push normal and contact points between two tracks
    findings    Finding (one failed check) and frame-list formatting
    video       Video: one HDF5's ground truth, with cached motion and contact geometry
    physics     the per-video physics checks
    violation   the violation record / presence / hidden / pair checks
    trial       audit_video, audit_trial (one trial's files: what the generation gate calls), failure_reason
    report      audit_set over a folder, summary, main (the CLI)
"""

from voebench.generator.contacts import PairGeometry, contact_points, pair_geometry
from voebench.generator.audit.findings import Finding
from voebench.generator.audit.physics import (
    Motion,
    check_acceleration,
    check_color_constant,
    check_no_interpenetration,
    check_no_teleport,
    check_resting_supported,
    check_visible_constant,
    motion,
    physics_findings,
)
from voebench.generator.audit.report import audit_set, main, read_manifest, summary
from voebench.generator.solids import FIXTURE_ROLES, Shape, Track, is_fixture_role, quat_to_matrices
from voebench.generator.audit.tolerances import (
    COLOR_TOL,
    CONTACT_CONE_DEG,
    CONTACT_TOL,
    EVENT_CHECKS,
    FREE_ACC_TOL,
    FRICTION_SPEEDUP_TOL,
    IMPACT_ACC,
    IMPACT_SLACK,
    IMPLAUSIBLE_CONDITIONS,
    MAX_FRAMES_LISTED,
    MAX_SPEED,
    PAIR_TOL,
    PENETRATION_TOL,
    PHYSICS_CHECKS,
    PLANE_THICKNESS,
    PLAUSIBLE_CONDITIONS,
    REST_FRAMES,
    REST_SPEED,
    SLIDING,
    SUPPORT_MARGIN,
    SUPPORT_NORMAL_Z,
    VIOLATION_CHECKS,
    WINDOW_SLACK,
)
from voebench.generator.audit.trial import VideoResult, audit_trial, audit_video, failure_reason
from voebench.generator.audit.video import Video
from voebench.generator.audit.violation import (
    aftermath,
    check_hidden,
    check_pair,
    check_violation_present,
    check_violation_record,
    manipulation_frames,
    outside_window,
    violation_objects,
)
from voebench.generator.geometry import GRAVITY, MESH_SEGMENTS  # gravity; the polygon count the facet allowance assumes

__all__ = [
    # what a caller runs
    "audit_trial",
    "failure_reason",
    "audit_set",
    "summary",
    "main",
    "read_manifest",
    "audit_video",
    "VideoResult",
    "Finding",
    "Video",
    # the checks
    "physics_findings",
    "check_no_interpenetration",
    "check_no_teleport",
    "check_acceleration",
    "check_resting_supported",
    "check_color_constant",
    "check_visible_constant",
    "motion",
    "Motion",
    "check_violation_record",
    "check_violation_present",
    "check_hidden",
    "check_pair",
    "outside_window",
    "aftermath",
    "manipulation_frames",
    "violation_objects",
    # geometry
    "Shape",
    "Track",
    "PairGeometry",
    "pair_geometry",
    "contact_points",
    "quat_to_matrices",
    "FIXTURE_ROLES",
    "is_fixture_role",
    "MESH_SEGMENTS",
    # tolerances and names
    "GRAVITY",
    "PENETRATION_TOL",
    "IMPACT_SLACK",
    "CONTACT_TOL",
    "MAX_SPEED",
    "REST_SPEED",
    "FREE_ACC_TOL",
    "CONTACT_CONE_DEG",
    "FRICTION_SPEEDUP_TOL",
    "IMPACT_ACC",
    "SLIDING",
    "SUPPORT_NORMAL_Z",
    "REST_FRAMES",
    "SUPPORT_MARGIN",
    "COLOR_TOL",
    "PAIR_TOL",
    "WINDOW_SLACK",
    "MAX_FRAMES_LISTED",
    "PLANE_THICKNESS",
    "PLAUSIBLE_CONDITIONS",
    "IMPLAUSIBLE_CONDITIONS",
    "PHYSICS_CHECKS",
    "VIOLATION_CHECKS",
    "EVENT_CHECKS",
]
