// Package report renders placelab's offline HTML pages: sections of a chart
// (built with go-echarts, drawn by the ECharts script shipped in assets/ and
// written beside the page, so nothing loads from the network), the numbers
// beneath it, and the SQL that produced them.
//
// Every string from a trace reaches the page either through html/template
// (escaped for its context) or inside chart options marshalled by
// encoding/json, which escapes <, > and & — so a VM type named "<script>"
// is shown, never run.
package report
