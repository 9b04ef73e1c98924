// Package datasets loads real trace formats into placelab's DuckDB store:
// the Azure packing trace 2020 (SQLite), the Azure VM trace V1/V2 vmtable and
// CPU readings, Huawei-East-1, Alibaba openb, Bitbrains/GWA, the Azure V1
// 5-minute CPU series, Lumos run times, and bin packing instances (BPPLIB and
// .vbp). Each ingest is one transaction (see store.DB.Ingest); a bad row stops
// it with a *RowError naming file, row and field, unless the caller allows
// rejections with Options.MaxRejects.
//
// The synthetic zone and trace generator lives in datasets/synth.
package datasets
