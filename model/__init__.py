"""The executable coordinator model.

Sans-IO: the model never reads a clock, a socket or a file. Time moves only when
an event carries a timestamp; every step is ``(state, event, now) -> (response, records)``
applied to a :class:`kgspec.model.coordinator.Coordinator`.
"""
