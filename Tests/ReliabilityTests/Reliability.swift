import Testing

/// Every reliability suite, one test at a time: they start processes, servers and a
/// thousand sockets, and run alone they finish sooner than side by side, while leaving the
/// rest of the suite (which runs beside them) its share of the machine.
@Suite("Reliability", .serialized)
enum Reliability {}
