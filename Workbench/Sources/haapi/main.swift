import HaapiCLI

await HaapiCommand.runFromCommandLine()
