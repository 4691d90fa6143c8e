-- A xiangqi game's repetition rules (`asian`, `repetition_draws` or
-- `asian_refusing`), chosen at creation; NULL for chess. Games stored
-- before this were played under Asian rules.
ALTER TABLE games ADD COLUMN xiangqi_rules TEXT;
UPDATE games SET xiangqi_rules = 'asian' WHERE variant = 'xiangqi';
