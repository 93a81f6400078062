extension ChronicleModel {
    /// Where an event stands in the order a merge applies events: the sync server's order
    /// first, then this replica's events the server has not given back yet, by their position here.
    ///
    /// Every replica that has pulled the same events ranks them alike, so per-field "later
    /// write wins" gives every replica the same result. An event of this replica not pulled
    /// back yet ranks after everything pulled so far: pulls arrive in the server's order, so
    /// the server placed it after them (or has not placed it yet).
    ///
    /// ```swift
    /// EventRank(upstream: 40, position: 12) < EventRank(upstream: nil, position: 3)   // true: pending comes last
    /// ```
    public struct EventRank: Sendable, Hashable, Comparable {
        /// The server's position of the event, nil while not known here.
        public var upstream: UInt64?
        /// The event's position in this replica's log.
        public var position: UInt64

        /// Makes a rank from the event's server position (nil while not known here) and its position here.
        public init(upstream: UInt64?, position: UInt64) {
            self.upstream = upstream
            self.position = position
        }

        public static func < (a: EventRank, b: EventRank) -> Bool {
            (a.upstream ?? .max, a.position) < (b.upstream ?? .max, b.position)
        }
    }
}
