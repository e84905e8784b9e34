import Hummingbird
import NIOCore

/// The per-request context: Hummingbird's core storage plus the peer address (admin routes are loopback-only).
public struct ServerRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// Bodies are small in this protocol; anything bigger is refused before it is read.
    public var maxUploadSize: Int { 64 * 1024 }

    var isFromLoopback: Bool { Self.isLoopback(remoteAddress?.ipAddress) }

    /// Whether a peer's address is this machine's loopback (127.0.0.0/8, ::1, or 127.x mapped into IPv6).
    static func isLoopback(_ address: String?) -> Bool {
        guard let address else { return false }
        let v4 = address.hasPrefix("::ffff:") ? String(address.dropFirst(7)) : address
        if address == "::1" { return true }
        let octets = v4.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}
