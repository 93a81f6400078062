import Foundation
import PostgresNIO

/// The statements whose plans decide how the storage scales as a tenant grows, built in one
/// place: the storage runs them, and the tests check their plans with `EXPLAIN`.
///
/// Both are written so that no plan can read more than the rows they answer about. The
/// planner judges a table by its statistics, which lag behind a table that just grew (a
/// pull right after a big push) or see it as small (a tenant's first hundred thousand
/// events); the natural spellings were then planned as scans of the tenant's every event.
enum PostgresStatements {
    /// Which of `ids` are stored for `tenant`: one probe of the `(tenant, id)` key per id.
    ///
    /// `id = ANY(ids)` was planned as a sequential scan of the tenant filtered by a hashed
    /// array while the table looked small, so every push cost more as the tenant grew (5.7 ms
    /// for 500 ids among 50,000 events, against 2.0 ms). The lateral subquery probes the key
    /// once per id; `OFFSET 0` keeps the planner from flattening it back into such a join.
    static func storedIDs(_ ids: [UUID], of tenant: String) -> PostgresQuery {
        """
        SELECT stored.id FROM UNNEST(\(ids)::uuid[]) AS pushed(id)
        CROSS JOIN LATERAL (SELECT id FROM chronicle_events WHERE tenant = \(tenant) AND id = pushed.id OFFSET 0) AS stored
        """
    }

    /// Up to `limit` events of `tenant` after `position`, in order.
    ///
    /// A tenant's positions have no gaps, so the page is exactly `(position, position + limit]`.
    /// With `position > after` alone, a table whose statistics predate its last big append was
    /// read from `after` to its end and sorted for every page (15 ms instead of 0.6 ms at
    /// 100,000 events).
    ///
    /// The page ends before the event that takes its data past `maxBytes` (the first one always
    /// comes): a running sum of the events' data sizes over the range, in position order
    /// (`octet_length` reads a stored value's size without reading the value).
    static func page(of tenant: String, after position: UInt64, limit: Int, maxBytes: Int) -> PostgresQuery {
        let after = Int64(clamping: position), count = Int64(limit), bytes = Int64(maxBytes)
        let (sum, overflow) = after.addingReportingOverflow(count)
        let through = overflow ? Int64.max : sum
        let first = after == .max ? after : after + 1
        return """
            SELECT position, id, stream, version, type, schema_version, timestamp_ms, origin, data FROM (
                SELECT position, id, stream, version, type, schema_version, timestamp_ms, origin, data,
                       sum(octet_length(data)) OVER (ORDER BY position) AS bytes_through
                FROM chronicle_events WHERE tenant = \(tenant) AND position > \(after) AND position <= \(through)
            ) page WHERE bytes_through <= \(bytes) OR position = \(first)
            ORDER BY position LIMIT \(count)
            """
    }
}
