@_exported import HaapiSdk
@_exported import Passkeys

// Observation for `HaapiFlowViewModel` (`ObservableObject`, `@Published`): Apple's Combine where it
// exists; OpenCombine, a dependency on Linux only, elsewhere, with its Dispatch schedulers (for the seed's
// `.receive(on: DispatchQueue.main)`) but not its Foundation part, which would bring FoundationNetworking.
#if canImport(Combine)
@_exported import Combine
#else
@_exported import OpenCombine
@_exported import OpenCombineDispatch
#endif
