import Foundation
@_spi(Tooling) import HaapiSdk

#if HAAPI_ASYNC_HTTP_CLIENT
import HaapiAsyncHTTPClient
#endif

/// The transport of the commands that talk to a server someone named (`check`, `login`, `token`, `approve`,
/// `passkey signup`/`signin`, the `authhub` client-credentials call):
/// a server that refuses the connection is reported at once, not after AsyncHTTPClient's ten seconds of
/// retrying, since a mistyped port is the usual reason. On Apple platforms URLSession already fails at once.
func commandTransport(timeout: TimeInterval = 30) -> any HTTPTransport {
    #if HAAPI_ASYNC_HTTP_CLIENT
    // Without TLS options the initializer cannot fail; the shared client is the fallback all the same.
    (try? AsyncHTTPClientTransport(timeout: timeout, retriesFailedConnections: false))
        ?? defaultHTTPTransport(timeout: timeout)
    #else
    defaultHTTPTransport(timeout: timeout)
    #endif
}
