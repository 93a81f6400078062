import Foundation
import PostgresNIO
import ChronicleServer
/// The devices in `chronicle_devices` (one row per tenant and device), which every server on
/// the database reads: a device revoked through any of them, or by an operator's command, is
/// refused by all from its next request on.
extension PostgresEventStorage {
    /// One upsert: a new device is inserted, a known one's `last_seen_ms` moved, unless it is
    /// revoked, in which case no row comes back and nothing changes.
    public func admit(device: String, of tenant: String) async throws -> Bool {
        let now = DeviceRecord.nowMilliseconds()
        return try await available { [client, logger] in
            let rows = try await client.query("""
                INSERT INTO chronicle_devices (tenant, device, first_seen_ms, last_seen_ms) VALUES (\(tenant), \(device), \(now), \(now))
                ON CONFLICT (tenant, device) DO UPDATE
                    SET last_seen_ms = GREATEST(chronicle_devices.last_seen_ms, excluded.last_seen_ms),
                        first_seen_ms = CASE WHEN chronicle_devices.first_seen_ms = 0 THEN excluded.first_seen_ms
                                             ELSE chronicle_devices.first_seen_ms END
                    WHERE NOT chronicle_devices.revoked
                RETURNING revoked
                """, logger: logger)
            for try await _ in rows.decode(Bool.self) { return true }
            return false
        }
    }

    public func record(device: String, of tenant: String, pushed: UInt64?, pulled: UInt64?) async throws {
        let pushedValue = Int64(clamping: pushed ?? 0), pulledValue = Int64(clamping: pulled ?? 0)
        try await available { [client, logger] in
            _ = try await client.query("""
                UPDATE chronicle_devices SET pushed_position = GREATEST(pushed_position, \(pushedValue)),
                                             pulled_position = GREATEST(pulled_position, \(pulledValue))
                WHERE tenant = \(tenant) AND device = \(device)
                """, logger: logger)
        }
    }

    public func tenantNames() async throws -> [String] {
        try await available { [client, logger] in
            var names: [String] = []
            for try await name in try await client.query("SELECT tenant FROM chronicle_tenants ORDER BY tenant", logger: logger)
                .decode(String.self) {
                names.append(name)
            }
            return names
        }
    }

    public func devices(of tenant: String) async throws -> [DeviceRecord] {
        try await available { [client, logger] in
            var records: [DeviceRecord] = []
            let rows = try await client.query("""
                SELECT device, first_seen_ms, last_seen_ms, pushed_position, pulled_position, revoked
                FROM chronicle_devices WHERE tenant = \(tenant) ORDER BY device
                """, logger: logger)
            for try await (device, first, last, pushed, pulled, revoked) in rows.decode((String, Int64, Int64, Int64, Int64, Bool).self) {
                records.append(DeviceRecord(device: device, firstSeenMilliseconds: first, lastSeenMilliseconds: last,
                                            pushedPosition: UInt64(max(0, pushed)), pulledPosition: UInt64(max(0, pulled)),
                                            revoked: revoked))
            }
            return records
        }
    }

    public func setRevoked(_ revoked: Bool, device: String, of tenant: String) async throws {
        try await available { [client, logger] in
            _ = try await client.query("""
                INSERT INTO chronicle_devices (tenant, device, first_seen_ms, last_seen_ms, revoked) VALUES (\(tenant), \(device), 0, 0, \(revoked))
                ON CONFLICT (tenant, device) DO UPDATE SET revoked = excluded.revoked
                """, logger: logger)
        }
    }
}
