@_exported import HaapiDriver
