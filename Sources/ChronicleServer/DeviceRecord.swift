import Foundation

/// What a server knows of one device of a tenant: when it was first and last seen, how far
/// it pushed and pulled, and whether an operator revoked it (its requests are then refused
/// with ``AuthenticationRefusal/revokedDevice``, while the tenant's other devices go on).
///
/// A device is named by a JWT's device claim (``JWTAuthentication/deviceClaim``); requests
/// without one (static tokens) record no device.
public struct DeviceRecord: Sendable, Hashable, Codable {
    /// The device's name, as its tokens' device claim says it.
    public var device: String
    /// When the server first let one of its requests through (Unix milliseconds; 0: never,
    /// for a device revoked before it was seen).
    public var firstSeenMilliseconds: Int64
    /// When the server last let one of its requests through (Unix milliseconds; 0: never).
    public var lastSeenMilliseconds: Int64
    /// The tenant's last position after this device's last push (0: it never pushed).
    public var pushedPosition: UInt64
    /// The last position this device's pulls reached (0: it never pulled anything).
    public var pulledPosition: UInt64
    /// Whether an operator revoked it.
    public var revoked: Bool

    /// Makes a record from its parts.
    public init(device: String, firstSeenMilliseconds: Int64 = 0, lastSeenMilliseconds: Int64 = 0, pushedPosition: UInt64 = 0,
                pulledPosition: UInt64 = 0, revoked: Bool = false) {
        self.device = device
        self.firstSeenMilliseconds = firstSeenMilliseconds
        self.lastSeenMilliseconds = lastSeenMilliseconds
        self.pushedPosition = pushedPosition
        self.pulledPosition = pulledPosition
        self.revoked = revoked
    }

    /// Now, in Unix milliseconds, as records keep it.
    public static func nowMilliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
}
