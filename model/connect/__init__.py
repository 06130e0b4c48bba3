"""Kafka Connect on the KIP-848 protocol: the Connect draft, modelled under profile ``kip``.

``ops`` (dispatch, fencing, the computation's soft state, timers), ``heartbeat``
(ConnectGroupHeartbeat), ``assignment`` (Prepare/Install and validation), ``reconcile`` (the
shared engine on connectors and tasks), ``records`` (kgspec record types 1000-1004),
``group``/``member``/``resources`` (state). See docs/connect.md.
"""
