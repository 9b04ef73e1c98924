-- 0012: the half-life of a lifetime_dist model's training weights, in
-- seconds (predict.RecencyWeights: a VM created d seconds before the
-- training cut weighs 2^(-d/h)); 0 weighs every training VM the same, as
-- every bucket classifier does. NULL on models stored before it existed,
-- read as 0 (they were trained with equal weights). Training refuses a
-- negative half-life (DuckDB cannot add a column with a CHECK).
ALTER TABLE model ADD COLUMN half_life_s DOUBLE;
