@_exported import HaapiSdk
@_exported import OpenCombineShim
@_exported import Passkeys
