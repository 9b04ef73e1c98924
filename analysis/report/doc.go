// Package report renders placelab's offline HTML pages: sections of a chart
// (built with go-echarts, drawn by the ECharts script shipped in assets/ and
// written beside the page, so nothing loads from the network), the numbers
// beneath it, and the SQL that produced them. A notebook's fragments
// (Fragment) carry the script in the page itself, once (LibraryFragment), so
// an exported notebook draws wherever it is copied. Every chart has one unit
// per axis, named in the axis's title as "what (unit)" (CheckUnits; a page
// or fragment with a chart that mixes units is not written).
//
// Every string from a trace reaches the page either through html/template
// (escaped for its context) or inside chart options marshalled by
// encoding/json, which escapes <, > and & — so a VM type named "<script>"
// is shown, never run.
package report
