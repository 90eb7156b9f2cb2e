package ms

import ct "github.com/gomatvis/gomatvis/internal/casatable"

// Keyword records the MS definition (and pyuvdata) gives columns.
var (
	noKeys = ct.Record{}
)

func units(u ...string) ct.Record { return ct.Record{}.Set("QuantumUnits", u) }

func measure(typ, ref string, u ...string) ct.Record {
	return units(u...).Set("MEASINFO", ct.Record{}.Set("type", typ).Set("Ref", ref))
}

func scalar(name string, t ct.DataType, comment string, keys ct.Record) ct.Column {
	return ct.Column{Name: name, Type: t, Comment: comment, Keywords: keys}
}

func array(name string, t ct.DataType, shape []int, comment string, keys ct.Record) ct.Column {
	return ct.Column{Name: name, Type: t, Shape: shape, Comment: comment, Keywords: keys}
}

// tiled is array stored by a TiledColumnStMan of its own, whose file has
// no 4 GiB limit: for the columns of a cell per channel.
func tiled(name string, t ct.DataType, shape []int, comment string, keys ct.Record) ct.Column {
	c := array(name, t, shape, comment, keys)
	c.Tiled = true
	return c
}

var (
	epochKeys = measure("epoch", "UTC", "s")
	secKeys   = units("s")
)

// Main-table column indices, in the order of mainColumns.
const (
	cUVW = iota
	cFlag
	cFlagCategory
	cWeight
	cSigma
	cAnt1
	cAnt2
	cArrayID
	cDataDescID
	cExposure
	cFeed1
	cFeed2
	cFieldID
	cFlagRow
	cInterval
	cObservationID
	cProcessorID
	cScanNumber
	cStateID
	cTime
	cTimeCentroid
	cData
)

// mainColumns is the main table's description for ncorr correlations
// and nchan channels: the MS v2 required columns and DATA, in the order
// and with the comments and keywords pyuvdata's skeleton gives them.
// DATA, FLAG and FLAG_CATEGORY, a cell per channel each, are tiled, so
// that an MS of HERA's size (490 MB of DATA a time) is not held to
// StManAipsIO's 4 GiB; the other columns, about 100 bytes a row, stay in
// StManAipsIO (4 GiB: about 40 million rows).
func mainColumns(ncorr, nchan int) []ct.Column {
	cell := []int{ncorr, nchan}
	return []ct.Column{
		array("UVW", ct.Double, []int{3}, "Vector with uvw coordinates (in meters)", measure("uvw", "ITRF", "m", "m", "m")),
		tiled("FLAG", ct.Bool, cell, "The data flags, array of bools with same shape as data", noKeys),
		tiled("FLAG_CATEGORY", ct.Bool, []int{ncorr, nchan, 1}, "The flag category, NUM_CAT flags for each datum", ct.Record{}.Set("CATEGORY", []string{""})),
		array("WEIGHT", ct.Float, []int{ncorr}, "Weight for each polarization spectrum", noKeys),
		array("SIGMA", ct.Float, []int{ncorr}, "Estimated rms noise for channel with unity bandpass response", noKeys),
		scalar("ANTENNA1", ct.Int, "ID of first antenna in interferometer", noKeys),
		scalar("ANTENNA2", ct.Int, "ID of second antenna in interferometer", noKeys),
		scalar("ARRAY_ID", ct.Int, "ID of array or subarray", noKeys),
		scalar("DATA_DESC_ID", ct.Int, "The data description table index", noKeys),
		scalar("EXPOSURE", ct.Double, "The effective integration time", secKeys),
		scalar("FEED1", ct.Int, "The feed index for ANTENNA1", noKeys),
		scalar("FEED2", ct.Int, "The feed index for ANTENNA2", noKeys),
		scalar("FIELD_ID", ct.Int, "Unique id for this pointing", noKeys),
		scalar("FLAG_ROW", ct.Bool, "Row flag - flag all data in this row if True", noKeys),
		scalar("INTERVAL", ct.Double, "The sampling interval", secKeys),
		scalar("OBSERVATION_ID", ct.Int, "ID for this observation, index in OBSERVATION table", noKeys),
		scalar("PROCESSOR_ID", ct.Int, "Id for backend processor, index in PROCESSOR table", noKeys),
		scalar("SCAN_NUMBER", ct.Int, "Sequential scan number from on-line system", noKeys),
		scalar("STATE_ID", ct.Int, "ID for this observing state", noKeys),
		scalar("TIME", ct.Double, "Modified Julian Day", epochKeys),
		scalar("TIME_CENTROID", ct.Double, "Modified Julian Day", epochKeys),
		tiled("DATA", ct.Complex, cell, "The data column", noKeys), // QuantumUnits set by the writer
	}
}

func antennaColumns() []ct.Column {
	pos := measure("position", "ITRF", "m", "m", "m")
	return []ct.Column{
		array("OFFSET", ct.Double, []int{3}, "Axes offset of mount to FEED REFERENCE point", pos),
		array("POSITION", ct.Double, []int{3}, "Antenna X,Y,Z phase reference position", pos),
		scalar("TYPE", ct.String, "Antenna type (e.g. SPACE-BASED)", noKeys),
		scalar("DISH_DIAMETER", ct.Double, "Physical diameter of dish", units("m")),
		scalar("FLAG_ROW", ct.Bool, "Flag for this row", noKeys),
		scalar("MOUNT", ct.String, "Mount type e.g. alt-az, equatorial, etc.", noKeys),
		scalar("NAME", ct.String, "Antenna name, e.g. VLA22, CA03", noKeys),
		scalar("STATION", ct.String, "Station (antenna pad) name", noKeys),
	}
}

func dataDescColumns() []ct.Column {
	return []ct.Column{
		scalar("FLAG_ROW", ct.Bool, "Flag this row", noKeys),
		scalar("POLARIZATION_ID", ct.Int, "Pointer to polarization table", noKeys),
		scalar("SPECTRAL_WINDOW_ID", ct.Int, "Pointer to spectralwindow table", noKeys),
	}
}

func feedColumns(nrec int) []ct.Column {
	return []ct.Column{
		array("POSITION", ct.Double, []int{3}, "Position of feed relative to feed reference position", measure("position", "ITRF", "m", "m", "m")),
		array("BEAM_OFFSET", ct.Double, []int{2, nrec}, "Beam position offset (on sky but in antennareference frame)", measure("direction", "J2000", "rad", "rad")),
		array("POLARIZATION_TYPE", ct.String, []int{nrec}, "Type of polarization to which a given RECEPTOR responds", noKeys),
		array("POL_RESPONSE", ct.Complex, []int{nrec, nrec}, "D-matrix i.e. leakage between two receptors", noKeys),
		array("RECEPTOR_ANGLE", ct.Double, []int{nrec}, "The reference angle for polarization", units("rad")),
		scalar("ANTENNA_ID", ct.Int, "ID of antenna in this array", noKeys),
		scalar("BEAM_ID", ct.Int, "Id for BEAM model", noKeys),
		scalar("FEED_ID", ct.Int, "Feed id", noKeys),
		scalar("INTERVAL", ct.Double, "Interval for which this set of parameters is accurate", secKeys),
		scalar("NUM_RECEPTORS", ct.Int, "Number of receptors on this feed (probably 1 or 2)", noKeys),
		scalar("SPECTRAL_WINDOW_ID", ct.Int, "ID for this spectral window setup", noKeys),
		scalar("TIME", ct.Double, "Midpoint of time for which this set of parameters is accurate", epochKeys),
	}
}

func fieldColumns() []ct.Column {
	dir := measure("direction", "ICRS", "rad", "rad")
	return []ct.Column{
		array("DELAY_DIR", ct.Double, []int{2, 1}, "Direction of delay center (e.g. RA, DEC)as polynomial in time.", dir),
		array("PHASE_DIR", ct.Double, []int{2, 1}, "Direction of phase center (e.g. RA, DEC).", dir),
		array("REFERENCE_DIR", ct.Double, []int{2, 1}, "Direction of REFERENCE center (e.g. RA, DEC).as polynomial in time.", dir),
		scalar("CODE", ct.String, "Special characteristics of field, e.g. Bandpass calibrator", noKeys),
		scalar("FLAG_ROW", ct.Bool, "Row Flag", noKeys),
		scalar("NAME", ct.String, "Name of this field", noKeys),
		scalar("NUM_POLY", ct.Int, "Polynomial order of _DIR columns", noKeys),
		scalar("SOURCE_ID", ct.Int, "Source id", noKeys),
		scalar("TIME", ct.Double, "Time origin for direction and rate", epochKeys),
	}
}

func flagCmdColumns() []ct.Column {
	return []ct.Column{
		scalar("APPLIED", ct.Bool, "True if flag has been applied to main table", noKeys),
		scalar("COMMAND", ct.String, "Flagging command", noKeys),
		scalar("INTERVAL", ct.Double, "Time interval for which this flag is valid", secKeys),
		scalar("LEVEL", ct.Int, "Flag level - revision level ", noKeys),
		scalar("REASON", ct.String, "Flag reason", noKeys),
		scalar("SEVERITY", ct.Int, "Severity code (0-10) ", noKeys),
		scalar("TIME", ct.Double, "Midpoint of interval for which this flag is valid", epochKeys),
		scalar("TYPE", ct.String, "Type of flag (FLAG or UNFLAG)", noKeys),
	}
}

func historyColumns() []ct.Column {
	return []ct.Column{
		array("APP_PARAMS", ct.String, []int{1}, "Application parameters", noKeys),
		array("CLI_COMMAND", ct.String, []int{1}, "CLI command sequence", noKeys),
		scalar("APPLICATION", ct.String, "Application name", noKeys),
		scalar("MESSAGE", ct.String, "Log message", noKeys),
		scalar("OBJECT_ID", ct.Int, "Originating ObjectID", noKeys),
		scalar("OBSERVATION_ID", ct.Int, "Observation id (index in OBSERVATION table)", noKeys),
		scalar("ORIGIN", ct.String, "(Source code) origin from which message originated", noKeys),
		scalar("PRIORITY", ct.String, "Message priority", noKeys),
		scalar("TIME", ct.Double, "Timestamp of message", epochKeys),
	}
}

func observationColumns() []ct.Column {
	return []ct.Column{
		array("TIME_RANGE", ct.Double, []int{2}, "Start and end of observation", epochKeys),
		array("LOG", ct.String, []int{1}, "Observing log", noKeys),
		array("SCHEDULE", ct.String, []int{1}, "Observing schedule", noKeys),
		scalar("FLAG_ROW", ct.Bool, "Row flag", noKeys),
		scalar("OBSERVER", ct.String, "Name of observer(s)", noKeys),
		scalar("PROJECT", ct.String, "Project identification string", noKeys),
		scalar("RELEASE_DATE", ct.Double, "Release date when data becomes public", epochKeys),
		scalar("SCHEDULE_TYPE", ct.String, "Observing schedule type", noKeys),
		scalar("TELESCOPE_NAME", ct.String, "Telescope Name (e.g. WSRT, VLBA)", noKeys),
		// pyuvdata's own column, which its reader uses for the array centre.
		array("TELESCOPE_LOCATION", ct.Double, []int{3}, "", noKeys),
	}
}

func pointingColumns() []ct.Column {
	dir := measure("direction", "J2000", "rad", "rad")
	return []ct.Column{
		array("DIRECTION", ct.Double, []int{2, 1}, "Antenna pointing direction as polynomial in time", dir),
		scalar("ANTENNA_ID", ct.Int, "Antenna Id", noKeys),
		scalar("INTERVAL", ct.Double, "Time interval", secKeys),
		scalar("NAME", ct.String, "Pointing position name", noKeys),
		scalar("NUM_POLY", ct.Int, "Series order", noKeys),
		array("TARGET", ct.Double, []int{2, 1}, "target direction as polynomial in time", dir),
		scalar("TIME", ct.Double, "Time interval midpoint", epochKeys),
		scalar("TIME_ORIGIN", ct.Double, "Time origin for direction", epochKeys),
		scalar("TRACKING", ct.Bool, "Tracking flag - True if on position", noKeys),
	}
}

func polarizationColumns(ncorr int) []ct.Column {
	return []ct.Column{
		array("CORR_TYPE", ct.Int, []int{ncorr}, "The polarization type for each correlation product, as a Stokes enum.", noKeys),
		array("CORR_PRODUCT", ct.Int, []int{2, ncorr}, "Indices describing receptors of feed going into correlation", noKeys),
		scalar("FLAG_ROW", ct.Bool, "Row flag", noKeys),
		scalar("NUM_CORR", ct.Int, "Number of correlation products", noKeys),
	}
}

func processorColumns() []ct.Column {
	return []ct.Column{
		scalar("FLAG_ROW", ct.Bool, "Row flag", noKeys),
		scalar("MODE_ID", ct.Int, "Processor mode id", noKeys),
		scalar("TYPE", ct.String, "Processor type", noKeys),
		scalar("TYPE_ID", ct.Int, "Processor type id", noKeys),
		scalar("SUB_TYPE", ct.String, "Processor sub type", noKeys),
	}
}

// freqRef is CHAN_FREQ's and REF_FREQUENCY's MEASINFO: the frame is the
// MEAS_FREQ_REF column's code (casacore's MFrequency types).
var freqRef = units("Hz").Set("MEASINFO", ct.Record{}.Set("type", "frequency").Set("VarRefCol", "MEAS_FREQ_REF").
	Set("TabRefTypes", []string{"REST", "LSRK", "LSRD", "BARY", "GEO", "TOPO", "GALACTO", "LGROUP", "CMB", "Undefined"}).
	Set("TabRefCodes", []uint32{0, 1, 2, 3, 4, 5, 6, 7, 8, 64}))

func spectralWindowColumns(nchan int) []ct.Column {
	hz := units("Hz")
	ch := []int{nchan}
	return []ct.Column{
		scalar("MEAS_FREQ_REF", ct.Int, "Frequency Measure reference", noKeys),
		array("CHAN_FREQ", ct.Double, ch, "Center frequencies for each channel in the data matrix", freqRef),
		scalar("REF_FREQUENCY", ct.Double, "The reference frequency", freqRef),
		array("CHAN_WIDTH", ct.Double, ch, "Channel width for each channel", hz),
		array("EFFECTIVE_BW", ct.Double, ch, "Effective noise bandwidth of each channel", hz),
		array("RESOLUTION", ct.Double, ch, "The effective noise bandwidth for each channel", hz),
		scalar("FLAG_ROW", ct.Bool, "Row flag", noKeys),
		scalar("FREQ_GROUP", ct.Int, "Frequency group", noKeys),
		scalar("FREQ_GROUP_NAME", ct.String, "Frequency group name", noKeys),
		scalar("IF_CONV_CHAIN", ct.Int, "The IF conversion chain number", noKeys),
		scalar("NAME", ct.String, "Spectral window name", noKeys),
		scalar("NET_SIDEBAND", ct.Int, "Net sideband", noKeys),
		scalar("NUM_CHAN", ct.Int, "Number of spectral channels", noKeys),
		scalar("TOTAL_BANDWIDTH", ct.Double, "The total bandwidth for this window", hz),
		array("ASSOC_SPW_ID", ct.Int, []int{1}, "Associated spectral window id", noKeys),
		array("ASSOC_NATURE", ct.String, []int{1}, "Nature of association with other spectral window", noKeys),
	}
}

func stateColumns() []ct.Column {
	return []ct.Column{
		scalar("CAL", ct.Double, "Noise calibration temperature", units("K")),
		scalar("FLAG_ROW", ct.Bool, "Row flag", noKeys),
		scalar("LOAD", ct.Double, "Load temperature", units("K")),
		scalar("OBS_MODE", ct.String, "Observing mode, e.g., OFF_SPECTRUM", noKeys),
		scalar("REF", ct.Bool, "True for a reference observation", noKeys),
		scalar("SIG", ct.Bool, "True for a source observation", noKeys),
		scalar("SUB_SCAN", ct.Int, "Sub scan number, relative to scan number", noKeys),
	}
}

func sourceColumns() []ct.Column {
	return []ct.Column{
		array("DIRECTION", ct.Double, []int{2}, "Direction (e.g. RA, DEC).", measure("direction", "J2000", "rad", "rad")),
		array("PROPER_MOTION", ct.Double, []int{2}, "Proper motion", units("rad/s")),
		scalar("CALIBRATION_GROUP", ct.Int, "Number of grouping for calibration purpose.", noKeys),
		scalar("CODE", ct.String, "Special characteristics of source, e.g. Bandpass calibrator", noKeys),
		scalar("INTERVAL", ct.Double, "Interval of time for which this set of parameters is accurate", secKeys),
		scalar("NAME", ct.String, "Name of source as given during observations", noKeys),
		scalar("NUM_LINES", ct.Int, "Number of spectral lines", noKeys),
		scalar("SOURCE_ID", ct.Int, "Source id", noKeys),
		scalar("SPECTRAL_WINDOW_ID", ct.Int, "ID for this spectral window setup", noKeys),
		scalar("TIME", ct.Double, "Midpoint of time for which this set of parameters is accurate.", epochKeys),
		scalar("PULSAR_ID", ct.Int, "Pulsar Id, pointer to pulsar table", noKeys),
	}
}
