-- Openings searched by level, each level's index in game order: the ECO
-- volume (`B`), group (`B5`) and code; the name's family
-- (before `:`), variation (before `,`) and the whole name.
ALTER TABLE game_openings ADD COLUMN eco_volume TEXT NOT NULL DEFAULT '';
ALTER TABLE game_openings ADD COLUMN eco_group TEXT NOT NULL DEFAULT '';
ALTER TABLE game_openings ADD COLUMN family TEXT NOT NULL DEFAULT '';
ALTER TABLE game_openings ADD COLUMN variation TEXT NOT NULL DEFAULT '';
UPDATE game_openings SET
    eco_volume = substr(eco, 1, 1),
    eco_group = substr(eco, 1, 2),
    family = CASE WHEN instr(name, ':') > 0 THEN substr(name, 1, instr(name, ':') - 1) ELSE name END,
    variation = CASE WHEN instr(name, ',') > 0 THEN substr(name, 1, instr(name, ',') - 1) ELSE name END;
CREATE INDEX game_openings_by_volume ON game_openings (eco_volume, game_seq);
CREATE INDEX game_openings_by_group ON game_openings (eco_group, game_seq);
CREATE INDEX game_openings_by_family ON game_openings (family, game_seq);
CREATE INDEX game_openings_by_variation ON game_openings (variation, game_seq);
