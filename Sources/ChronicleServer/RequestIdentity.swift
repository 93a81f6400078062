/// Who sent a request, once its bearer token is accepted: the tenant whose events it reads
/// and writes, and the device, when the token names one.
public struct RequestIdentity: Sendable, Hashable {
    /// The tenant (a static token's, or a JWT's tenant claim).
    public var tenant: String
    /// The device (a JWT's device claim), nil when the token names none.
    public var device: String?

    /// Makes an identity.
    public init(tenant: String, device: String? = nil) {
        self.tenant = tenant
        self.device = device
    }
}
