@_exported import HaapiSdk
@_exported import Passkeys

// Observation for `HaapiFlowViewModel` (`ObservableObject`, `@Published`): Apple's Combine where it
// exists; OpenCombine, a dependency on Linux only, elsewhere.
#if canImport(Combine)
@_exported import Combine
#else
@_exported import OpenCombineShim
#endif
