// The event values (RecordedEvent, ForeignEvent, Timestamp, EventValidation) live in
// ChronicleEvents, which the wire protocol shares without the log; a user of the log sees
// them with `import ChronicleLog`.
@_exported import ChronicleEvents

extension EventLogError {
    /// Runs `body`, which checks an event by ``EventValidation``'s rules, and throws what it
    /// finds wrong as the log's ``EventLogError/invalidEvent(_:)``.
    static func validating(_ body: () throws(EventValidationError) -> Void) throws(EventLogError) {
        do { try body() } catch { throw .invalidEvent(error.reason) }
    }
}
