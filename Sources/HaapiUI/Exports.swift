@_exported import HaapiSdk
@_exported import OpenCombineShim
