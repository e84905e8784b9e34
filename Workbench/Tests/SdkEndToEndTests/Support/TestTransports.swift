import Foundation
@_spi(Tooling) import HaapiSdk

#if HAAPI_ASYNC_HTTP_CLIENT
import HaapiAsyncHTTPClient
#endif

/// A fresh instance of the transport the workbench uses: URLSession on Apple platforms, AsyncHTTPClient on Linux
/// (swift-haapi-integrations).
func platformTransport(timeout: TimeInterval) throws -> any HTTPTransport {
    #if HAAPI_ASYNC_HTTP_CLIENT
    try AsyncHTTPClientTransport(timeout: timeout)
    #else
    URLSessionTransport(timeout: timeout)
    #endif
}
