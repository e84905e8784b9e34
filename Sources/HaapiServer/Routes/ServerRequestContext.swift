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

    var isFromLoopback: Bool {
        guard let address = remoteAddress?.ipAddress else { return false }
        return address == "127.0.0.1" || address == "::1" || address.hasPrefix("127.") || address == "::ffff:127.0.0.1"
    }
}
