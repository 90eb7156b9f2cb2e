// Package input builds matvis simulations from the inputs users write: a
// simspec (FromSpec, FromSpecFile), a pyuvsim configuration (FromObsParam,
// FromObsConfig) with its catalogs, beams and layouts, and the Earth
// orientation tables (BuiltinEOP, ReadEOPFile). It is the glue between the
// file formats (matvis/simspec, matvis/obsparam, matvis/skymodel,
// beamfits) and the core (matvis), which imports none of them: the core
// takes a Config; this package makes one, applies a run's overrides
// (RunOverrides) and names in the Observation what the outputs record.
package input
