-- dataset_origin: each loaded dataset's format and the --inventory spec its
-- machines were generated from (NULL if it has its own or none), so that the
-- characterization page can tell data generated from the papers' tables
-- (format 'synthetic', or an inventory 'synthetic:N') from measured traces.
SELECT name, format, json_extract_string(params, '$.inventory') AS inventory
FROM dataset
ORDER BY name;
