import ChronicleSchema

/// Where an event stands in the order a merge applies events: the server's order first, then
/// this replica's unsent events by their position here (``ChronicleModel/EventRank``).
public typealias MergeRank = ChronicleModel.EventRank
