-- bench_views_csv: the VM table as placelab bench views hands it to
-- pandas (bench/pandas_views.py), one row per VM with its type's cores and
-- memory, as the Azure public dataset's vmtable carries them per VM.
SELECT v.vm_id, v.tenant, v.subscription, v.vm_type, v.start_s, v.end_s, t.cores, t.memory_gb
FROM vm v LEFT JOIN vm_type t ON t.load_id = v.load_id AND t.vm_type = v.vm_type
ORDER BY v.dataset, v.vm_id
