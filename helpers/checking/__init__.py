"""The checker: a learner's kernel run apart from the notebook, on the course device and on
Oclgrind, and a verdict that says what is wrong and where.

- :mod:`.checker`: ``check`` and ``run_check``, the passes side by side, the warm workers;
- :mod:`.options`: :class:`CheckOptions`, what a check may be told, and its time limits;
- :mod:`.passes`: the device, Oclgrind and speed passes (facts); :mod:`.worker_side`, their worker side;
- :mod:`.diagnosis`: the sentences; :mod:`.verdict`: the passes combined into a report;
- :mod:`.oclgrind`: Oclgrind's reports parsed into findings at the learner's line;
- :mod:`.grade`: a class graded.

The exercises it checks are :mod:`helpers.exercises`, a floor below.
"""

from ..lazy import hand_on

_OWNERS = {"CheckOptions": "options", "CheckReport": "verdict", "CheckUsageError": "checker",
           "KernelCheckFailed": "checker", "check": "checker", "run_check": "checker"}
__all__ = sorted(_OWNERS)
__getattr__, __dir__ = hand_on(__name__, _OWNERS, globals())
