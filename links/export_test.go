package links

// CheckAgainstReference lets the external tests (which build the
// presets and systems of devices) hold a topology's route trees to the
// reference Dijkstra.
var CheckAgainstReference = checkAgainstReference
