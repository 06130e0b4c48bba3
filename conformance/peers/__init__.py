"""Real peers: recording traces from real Kafka clients (I/O lives here, never in ``model/``).

``wire`` decodes Kafka protocol frames with kio into the JSON shape of Kafka's request log,
``proxy`` is a decoding TCP proxy in front of a broker, ``rdkafka_mock`` binds librdkafka's
mock cluster (bundled with confluent-kafka) through ctypes, and ``librdkafka`` runs the
recording scenarios. Everything but ``wire`` needs the ``peers`` extra.
"""
